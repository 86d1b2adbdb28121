/**
 * The OB error envelope `{Code, Id, Message, Errors:[{ErrorCode, Message, Path}]}` and the one
 * table of the codes the bank answers (OBInternalErrorResponseError1Code, v4: four characters).
 * Names are ours; the codes follow the issue (U008 for a payment that does not match its consent).
 */
export const ErrorCode = {
  FieldInvalid: 'U001',
  FieldMissing: 'U003',
  FieldUnexpected: 'U004',
  HeaderInvalid: 'U005',
  HeaderMissing: 'U006',
  ConsentInvalidStatus: 'U007',
  ConsentMismatch: 'U008',
  ResourceInvalidFormat: 'U009',
  ResourceNotFound: 'U010',
  IdempotencyKeyReused: 'U012',
  UnsupportedCurrency: 'U013',
  SignatureInvalid: 'U016',
  SignatureInvalidClaim: 'U017',
  SignatureMissing: 'U018',
  SignatureMalformed: 'U020',
  /** Not an OB U-code: the HTTP status says it all; kept four characters long as the schema asks. */
  Unauthorized: 'U401',
  Forbidden: 'U403',
  NotAcceptable: 'U406',
  UnsupportedMediaType: 'U415',
  TooManyRequests: 'U429',
  ServerError: 'U500',
  Unavailable: 'U503',
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface ObErrorItem {
  ErrorCode: string;
  Message: string;
  Path?: string;
}

export class ObError extends Error {
  override name = 'ObError';
  readonly status: number;
  readonly code: ErrorCodeValue;
  readonly path: string | undefined;
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    code: ErrorCodeValue,
    message: string,
    path?: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.path = path;
    this.headers = headers;
  }

  items(): ObErrorItem[] {
    return [{ ErrorCode: this.code, Message: this.message, ...(this.path ? { Path: this.path } : {}) }];
  }
}

export function envelope(status: number, items: ObErrorItem[], id: string) {
  return {
    Id: id.slice(0, 40),
    Code: String(status),
    Message: items[0]?.Message.slice(0, 500) ?? 'Error',
    Errors: items.map((item) => ({ ...item, Message: item.Message.slice(0, 500) })),
  };
}
