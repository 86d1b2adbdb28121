import { toString as qrSvg } from 'qrcode';

/**
 * A QR code of `text` as an SVG data URL. An `<img>` of a data URL passes the pages' CSP
 * (`img-src 'self' data:`) where an inline SVG's styles would not. Error correction M: a phone
 * still reads it from a screen with glare; a margin of 2 modules keeps it compact on a phone.
 */
export const qrCodeDataUrl = async (text: string): Promise<string> => {
  const svg = await qrSvg(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
};
