// What a failed attempt without an HTTP answer means for a retry: was the
// request possibly received by the server (`sent`), and can trying again help
// at all (`fatal`: a certificate the client does not trust will not start
// being trusted). Pure classification of node's error codes (and the connect timeout's, dispatcher.ts);
// anything unknown counts as sent, so a non-idempotent request is never
// repeated on a guess.

export interface ConnectionFailure {
  readonly sent: boolean;
  readonly fatal: boolean;
  /** For the ClientConnectionError's message. */
  readonly message: string;
}

/** Failures before a single byte of the request could reach the server. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ERR_CONNECT_TIMEOUT']);

/** A request node refuses to send at all (a bad header, path or argument): the same request fails the same way again. */
const REFUSED_LOCALLY = new Set(['ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE', 'ERR_INVALID_CHAR', 'ERR_INVALID_HTTP_TOKEN', 'ERR_HTTP_INVALID_HEADER_VALUE', 'ERR_UNESCAPED_CHARACTERS']);

const TLS_FATAL = /^(ERR_TLS_|ERR_SSL_|UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_|CERT_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

function codeOf(e: unknown): string | undefined {
  for (let cur: unknown = e, i = 0; cur !== undefined && cur !== null && i < 5; cur = (cur as { cause?: unknown }).cause, i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

export function classifyConnectionError(e: unknown): ConnectionFailure {
  const code = codeOf(e);
  const text = e instanceof Error ? e.message : String(e);
  const message = code === undefined || text.includes(code) ? text : `${text} (${code})`;
  if (code !== undefined && TLS_FATAL.test(code)) return { sent: false, fatal: true, message: `TLS: ${message}` };
  if (code !== undefined && REFUSED_LOCALLY.has(code)) return { sent: false, fatal: true, message };
  if (code !== undefined && NOT_SENT.has(code)) return { sent: false, fatal: false, message };
  return { sent: true, fatal: false, message };
}
