// A minimal protobuf reader/writer for the conformance suite, so it checks the
// server's protobuf envelope (spec §4.9) byte by byte without trusting the
// project's own codec. Fields are read as raw (wire type 2) bytes or varints.

export interface PbField {
  no: number;
  wire: number;
  bytes?: Buffer;
  varint?: number;
}

export function readFields(buf: Buffer): PbField[] {
  const out: PbField[] = [];
  let i = 0;
  const varint = (): number => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = buf[i++]!;
      v += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return v;
      shift += 7;
    }
  };
  while (i < buf.length) {
    const tag = varint();
    const no = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) out.push({ no, wire, varint: varint() });
    else if (wire === 2) {
      const len = varint();
      out.push({ no, wire, bytes: buf.subarray(i, i + len) });
      i += len;
    } else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else throw new Error(`wire type ${wire} at ${i}`);
  }
  return out;
}

export const field = (buf: Buffer, no: number): Buffer | undefined => readFields(buf).find((f) => f.no === no)?.bytes;
export const str = (buf: Buffer | undefined, no: number): string | undefined => (buf === undefined ? undefined : field(buf, no)?.toString('utf8'));

export const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Decodes the §4.9 envelope: magic + Unknown{typeMeta{apiVersion, kind}, raw}. */
export function openEnvelope(body: Buffer): { apiVersion: string | undefined; kind: string | undefined; raw: Buffer } {
  if (!body.subarray(0, 4).equals(MAGIC)) throw new Error(`no protobuf magic: ${body.subarray(0, 8).toString('hex')}`);
  const unknown = body.subarray(4);
  const typeMeta = field(unknown, 1);
  return { apiVersion: str(typeMeta, 1), kind: str(typeMeta, 2), raw: field(unknown, 2) ?? Buffer.alloc(0) };
}

function varintBytes(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

/** A length-delimited field. */
export function ld(no: number, payload: Buffer | string): Buffer {
  const p = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.concat([varintBytes(no * 8 + 2), varintBytes(p.length), p]);
}

export function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  return Buffer.concat([MAGIC, ld(1, Buffer.concat([ld(1, apiVersion), ld(2, kind)])), ld(2, raw)]);
}
