import type { Readable } from 'node:stream';
import { z } from 'zod';

/**
 * A procedure's answer that is not JSON (GET /payments/export's CSV): the REST edge sends the
 * stream as it is, with this media type and these headers, instead of the success envelope.
 * Failures before the stream starts (auth, validation) still answer the failure envelope.
 */
export class StreamedAnswer {
  readonly contentType: string;
  readonly body: Readable;
  readonly headers: Record<string, string>;

  constructor(contentType: string, body: Readable, headers: Record<string, string> = {}) {
    this.contentType = contentType;
    this.body = body;
    this.headers = headers;
  }
}

/**
 * The output schema of a streamed procedure: checks the instance at run time; in the OpenAPI
 * document the operation's success content is replaced with the media type its meta names
 * (meta.streamed, see http/openapi-document.ts).
 */
export const StreamedAnswerOutput = z
  .instanceof(StreamedAnswer)
  .meta({ override: { type: 'string' }, description: 'A stream (see the operation)' });
