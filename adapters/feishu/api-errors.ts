/**
 * Decoding Feishu API failures: non-zero `code` answers, SDK/axios errors and their codes, and a short
 * description for logs and the operator.
 */
import { AdapterError } from "../../src/core/errors.js";

/** Throws when an API answer (HTTP 200) carries a non-zero `code`. */
export function checkResponse(response: unknown): void {
  const code = (response as { code?: number } | undefined)?.code;
  if (code !== undefined && code !== 0) {
    const msg = (response as { msg?: string }).msg ?? "";
    throw new AdapterError("feishu", `Feishu API error ${code}: ${msg}`, {
      code: `adapter.feishu.${code}`,
      cause: response,
    });
  }
}

/** The Feishu error code of a failed call (API body `code`, from an HTTP error or a checked response). */
export function feishuErrorCode(error: unknown): number | undefined {
  const candidates = [
    (error as { response?: { data?: { code?: unknown } } })?.response?.data?.code,
    ((error as { cause?: { code?: unknown } })?.cause as { code?: unknown } | undefined)?.code,
  ];
  const code = candidates.find((value) => typeof value === "number");
  return typeof code === "number" ? code : undefined;
}

export function feishuErrorMessage(error: unknown): string {
  const data = (error as { response?: { data?: { msg?: unknown } } })?.response?.data;
  const cause = (error as { cause?: { msg?: unknown } })?.cause;
  return String(data?.msg ?? cause?.msg ?? "");
}

/** True when the API refused the message content (bad post format, content too long). */
export function isContentRejection(error: unknown): boolean {
  const code = feishuErrorCode(error);
  if (code === 230001 || code === 230025) return true;
  return /content|post/i.test(feishuErrorMessage(error));
}

export function describeError(error: unknown): string {
  const code = feishuErrorCode(error);
  const status = (error as { response?: { status?: unknown } })?.response?.status;
  const message = error instanceof Error ? error.message : String(error);
  return [message, status ? `HTTP ${status}` : "", code !== undefined ? `code ${code}` : ""]
    .filter(Boolean)
    .join(", ");
}
