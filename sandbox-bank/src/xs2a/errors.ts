/**
 * The NextGenPSD2 error model (`Error4xx_NG_PIS`): `{tppMessages: [{category, code, path?, text}]}`
 * with the codes of the Implementation Guidelines, each at the HTTP status they give it.
 */
export const Xs2aCode = {
  FormatError: 'FORMAT_ERROR',
  ParameterNotConsistent: 'PARAMETER_NOT_CONSISTENT',
  CertificateInvalid: 'CERTIFICATE_INVALID',
  CertificateExpired: 'CERTIFICATE_EXPIRED',
  CertificateMissing: 'CERTIFICATE_MISSING',
  SignatureInvalid: 'SIGNATURE_INVALID',
  SignatureMissing: 'SIGNATURE_MISSING',
  ResourceUnknown: 'RESOURCE_UNKNOWN',
  ProductUnknown: 'PRODUCT_UNKNOWN',
  ServiceInvalid: 'SERVICE_INVALID',
  CancellationInvalid: 'CANCELLATION_INVALID',
  AccessExceeded: 'ACCESS_EXCEEDED',
  /** Not a code of the standard (it defines no body for 406, 415, 500, 503): our names for those. */
  NotAcceptable: 'NOT_ACCEPTABLE',
  UnsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  InternalError: 'INTERNAL_SERVER_ERROR',
  ServiceUnavailable: 'SERVICE_UNAVAILABLE',
} as const;
export type Xs2aCodeValue = (typeof Xs2aCode)[keyof typeof Xs2aCode];

export interface TppMessage {
  category: 'ERROR';
  code: Xs2aCodeValue;
  path?: string;
  text: string;
}

export class Xs2aError extends Error {
  override name = 'Xs2aError';
  readonly status: number;
  readonly code: Xs2aCodeValue;
  readonly path: string | undefined;
  constructor(status: number, code: Xs2aCodeValue, text: string, path?: string) {
    super(text);
    this.status = status;
    this.code = code;
    this.path = path;
  }

  body(): { tppMessages: TppMessage[] } {
    return errorBody(this.code, this.message, this.path);
  }
}

export function errorBody(code: Xs2aCodeValue, text: string, path?: string): { tppMessages: TppMessage[] } {
  return { tppMessages: [{ category: 'ERROR', code, ...(path ? { path } : {}), text: text.slice(0, 500) }] };
}

export const formatError = (text: string, path?: string) =>
  new Xs2aError(400, Xs2aCode.FormatError, text, path);
