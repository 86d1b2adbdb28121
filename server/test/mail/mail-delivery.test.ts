import { afterAll, describe, expect, test } from 'vitest';
import { MailDelivery } from '../../src/db/entities/index.ts';
import { openOrm } from '../../src/db/orm.ts';
import { startJobQueue } from '../../src/jobs/job-queue.ts';
import { mailSendJob } from '../../src/jobs/mail-jobs.ts';
import { startBackground } from '../../src/lifecycle/background.ts';
import { verifyEmailMail } from '../../src/mail/templates.ts';
import { capturedLogger } from '../helpers/log-capture.ts';
import { startSmtpCatcher } from '../helpers/smtp-catcher.ts';
import { TestClock } from '../helpers/test-clock.ts';
import { testConfig } from '../helpers/test-config.ts';
import { createTestDatabase } from '../helpers/test-database.ts';
import { waitFor } from '../jobs/worker-harness.ts';

/**
 * Issue 24, item 2: account mail goes through a pg-boss job to a real SMTP server (smtp-server),
 * retried on a temporary failure, and a mail that can never be sent is visible to the operator.
 */
const smtp = await startSmtpCatcher();
const database = await createTestDatabase();
const orm = await openOrm(database.url, { poolMax: 6 });
const clock = new TestClock();
const config = testConfig({
  databaseUrl: database.url,
  mail: { smtpUrl: smtp.url, from: 'Payments <no-reply@pis.test>', devInbox: { smtpPort: 0, webPort: 0 } },
});
const log = capturedLogger();
const background = await startBackground({
  config,
  orm,
  databaseUrl: database.url,
  clock,
  logger: log.logger,
  runWorker: true,
});
// A second queue handle, to send jobs with test-only retry settings.
const sender = await startJobQueue({ databaseUrl: database.url, logger: log.logger, worker: false });

afterAll(async () => {
  await sender.stop({ graceful: false });
  await background.stop();
  await orm.close();
  await database.drop();
  await smtp.close();
});

const delivery = (id: string) => orm.em.fork().findOne(MailDelivery, { id });
const deliveries = () => orm.em.fork().find(MailDelivery, {}, { orderBy: { createdAt: 'asc' } });

describe('account mail', () => {
  test('queued through the outbox, sent by the worker over SMTP: text and HTML, the name escaped', async () => {
    const organizationName = '<script>alert(1)</script> Acme & "Co"';
    const message = verifyEmailMail({
      to: 'owner@acme.example',
      organizationName,
      url: 'http://localhost:3000/dashboard/verify-email#token=abc',
    });
    await background.mail.queue('verify-email', message);
    const mail = await smtp.mailTo('owner@acme.example');
    expect(mail.from).toBe('"Payments" <no-reply@pis.test>');
    expect(mail.subject).toBe('Confirm your email address');
    expect(mail.text).toContain(organizationName);
    expect(mail.text).toContain('http://localhost:3000/dashboard/verify-email#token=abc');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Acme &amp; &quot;Co&quot;');
    const [row] = await waitFor(deliveries, (rows) => rows[0]?.status === 'sent', 10_000);
    expect(row).toMatchObject({
      purpose: 'verify-email',
      toAddress: 'owner@acme.example',
      status: 'sent',
      attempts: 1,
    });
  });

  test('a temporary SMTP failure is retried, and the mail arrives', async () => {
    // Refused once (451), then retried after 1 s.
    smtp.failNext(1);
    const now = clock.now();
    await orm.em.fork().insert(MailDelivery, {
      id: 'mail_retry',
      purpose: 'password-reset',
      toAddress: 'retry@acme.example',
      status: 'queued',
      attempts: 0,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    });
    await sender.send(
      mailSendJob,
      {
        deliveryId: 'mail_retry',
        message: verifyEmailMail({
          to: 'retry@acme.example',
          organizationName: 'Acme',
          url: 'http://x.example/',
        }),
      },
      { retryDelay: 1, retryBackoff: false },
    );
    await smtp.mailTo('retry@acme.example', 20_000);
    const row = await waitFor(
      () => delivery('mail_retry'),
      (found) => found?.status === 'sent',
      10_000,
    );
    expect(row?.attempts).toBeGreaterThanOrEqual(2);
  });

  test('a mail that can never be sent ends failed: an error line and the operator CLI list it, no link in the log', async () => {
    const now = clock.now();
    await orm.em.fork().insert(MailDelivery, {
      id: 'mail_doomed',
      purpose: 'password-reset',
      toAddress: 'doomed@acme.example',
      status: 'queued',
      attempts: 0,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    });
    smtp.failNext(100);
    await sender.send(
      mailSendJob,
      {
        deliveryId: 'mail_doomed',
        message: verifyEmailMail({
          to: 'doomed@acme.example',
          organizationName: 'Acme',
          url: 'http://x.example/reset#token=SECRET-TOKEN',
        }),
      },
      { retryLimit: 1, retryDelay: 1, retryBackoff: false },
    );
    const row = await waitFor(
      () => delivery('mail_doomed'),
      (found) => found?.status === 'failed',
      30_000,
    );
    smtp.failNext(0);
    expect(row).toMatchObject({ status: 'failed', attempts: 2 });
    expect(row?.lastError).toMatch(/451/);
    const failure = log.lines().find((line) => line.msg?.toString().startsWith('mail could not be sent'));
    expect(failure).toMatchObject({ level: 50, deliveryId: 'mail_doomed', purpose: 'password-reset' });
    expect(log.text()).not.toContain('SECRET-TOKEN');

    const { failedMail } = await import('../../src/mail/mail-deliveries.ts');
    expect((await failedMail(orm.em, 10)).map((mail) => mail.id)).toEqual(['mail_doomed']);
  });
});
