/**
 * A small multipart/form-data reader (RFC 7578) for the emulators that take file uploads (Discord
 * attachments, Lark `im/v1/files`). It keeps every part in order with its raw bytes, so an emulator
 * can check names, file names and sizes exactly as the platform would.
 */
import type http from "node:http";

/** One part of a multipart/form-data body. */
export interface FormPart {
  /** The `name` of its Content-Disposition. */
  name: string;
  /** The `filename` of its Content-Disposition, when it has one. */
  filename?: string;
  /** Its Content-Type header, when it has one. */
  contentType?: string;
  /** Its bytes, exactly as sent. */
  data: Buffer;
}

/** The boundary of a multipart/form-data request, or undefined for any other body. */
export function multipartBoundary(req: http.IncomingMessage): string | undefined {
  const contentType = req.headers["content-type"] ?? "";
  return /multipart\/form-data;.*boundary=("?)([^";]+)\1/i.exec(contentType)?.[2];
}

/** Splits a multipart/form-data body into its parts, in order. */
export function parseFormData(body: Buffer, boundary: string): FormPart[] {
  const parts: FormPart[] = [];
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    // Each part sits between the CRLF after a delimiter and the CRLF before the next one.
    const part = body.subarray(start + 2, next - 2);
    const split = part.indexOf("\r\n\r\n");
    const head = part.subarray(0, split).toString("utf8");
    const name = /[;:\s]name="([^"]*)"/i.exec(head)?.[1] ?? "";
    const fileMatch = /filename=(?:"([^"]*)"|([^;\r\n]*))/i.exec(head);
    const contentType = /^content-type:\s*([^\r\n]+)/im.exec(head)?.[1]?.trim();
    parts.push({
      name,
      ...(fileMatch ? { filename: fileMatch[1] ?? fileMatch[2] ?? "" } : {}),
      ...(contentType ? { contentType } : {}),
      data: part.subarray(split + 4),
    });
    at = next;
  }
  return parts;
}
