import type { Adapter, AdapterPayload } from 'oidc-provider';
import type pg from 'pg';

/**
 * oidc-provider's storage (sessions, interactions, PAR requests, codes, tokens, grants) in the
 * bank's Postgres, so a restart keeps sign-ins, codes and tokens: one table keyed by model name.
 */
export function postgresAdapter(pool: pg.Pool): new (name: string) => Adapter {
  return class PostgresAdapter implements Adapter {
    private readonly name: string;
    constructor(name: string) {
      this.name = name;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await pool.query(
        `insert into oidc_payloads (type, id, payload, grant_id, user_code, uid, expires_at)
         values ($1, $2, $3, $4, $5, $6, case when $7::int > 0 then now() + make_interval(secs => $7::int) end)
         on conflict (type, id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
           user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
        [
          this.name,
          id,
          payload,
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          expiresIn ?? 0,
        ],
      );
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return this.one('id = $2', id);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.one('user_code = $2', userCode);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.one('uid = $2', uid);
    }

    async consume(id: string): Promise<void> {
      await pool.query('update oidc_payloads set consumed_at = now() where type = $1 and id = $2', [
        this.name,
        id,
      ]);
    }

    async destroy(id: string): Promise<void> {
      await pool.query('delete from oidc_payloads where type = $1 and id = $2', [this.name, id]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await pool.query('delete from oidc_payloads where grant_id = $1', [grantId]);
    }

    private async one(where: string, value: string): Promise<AdapterPayload | undefined> {
      const { rows } = await pool.query<{ payload: AdapterPayload; consumed: number | null }>(
        `select payload, extract(epoch from consumed_at)::int as consumed from oidc_payloads
         where type = $1 and ${where} and (expires_at is null or expires_at > now())`,
        [this.name, value],
      );
      const row = rows[0];
      if (!row) return undefined;
      return row.consumed ? { ...row.payload, consumed: row.consumed } : row.payload;
    }
  };
}

/** Expired rows are dead weight: removed now and then by the bank's housekeeping. */
export async function deleteExpired(pool: pg.Pool): Promise<void> {
  await pool.query('delete from oidc_payloads where expires_at < now()');
}
