// Which fields the decode in progress leaves out (DecodeOptions). Decoding
// is synchronous, so one flag for the span of a decode call serves every
// nested message without a parameter on each compiled decoder (convert.ts
// reads it for the fields marked omittable in plan.ts).

export const decodeSpan = { omitting: false };

/** Runs `decode` with the omittable fields skipped on the wire (never decoded, never allocated). */
export function decodeOmitting<T>(decode: () => T): T {
  if (decodeSpan.omitting) return decode();
  decodeSpan.omitting = true;
  try {
    return decode();
  } finally {
    decodeSpan.omitting = false;
  }
}
