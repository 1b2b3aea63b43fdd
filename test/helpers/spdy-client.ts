// A minimal SPDY/3.1 client for tests, enough to speak the platform's
// streaming protocols (remote command v4, port-forward) as kubectl does
// through the node's /exec and /portForward: it upgrades an HTTP connection,
// opens client streams (SYN_STREAM with zlib-compressed headers sharing one
// compression context, as SPDY requires), writes data frames, and collects
// each stream's data until its FIN or the connection closes. Server headers
// are not decompressed (nothing here reads them); PINGs are answered and every
// data frame is acknowledged with a WINDOW_UPDATE so long output never stalls.
import { connect, type Socket } from 'node:net';
import { constants, createDeflate, type Deflate } from 'node:zlib';

/** The SPDY/3 header compression dictionary (SPDY protocol draft 3, section 2.6.10.1). */
export const SPDY3_DICTIONARY: Buffer = (() => {
  const words = [
    'options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding', 'accept-language',
    'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection', 'content-base', 'content-encoding',
    'content-language', 'content-length', 'content-location', 'content-md5', 'content-range', 'content-type', 'date', 'etag',
    'expect', 'expires', 'from', 'host', 'if-match', 'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since',
    'last-modified', 'location', 'max-forwards', 'pragma', 'proxy-authenticate', 'proxy-authorization', 'range', 'referer',
    'retry-after', 'server', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'user-agent', 'vary', 'via', 'warning',
    'www-authenticate', 'method', 'get', 'status', '200 OK', 'version', 'HTTP/1.1', 'url', 'public', 'set-cookie', 'keep-alive', 'origin',
  ];
  const tail =
    '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
    '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized' +
    '403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
    'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
    'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,' +
    'text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';
  const parts = words.flatMap((w) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(w.length);
    return [len, Buffer.from(w, 'latin1')];
  });
  return Buffer.concat([...parts, Buffer.from(tail, 'latin1')]);
})();

const SYN_STREAM = 1;
const RST_STREAM = 3;
const PING = 6;
const GOAWAY = 7;
const WINDOW_UPDATE = 9;
const FLAG_FIN = 1;

export interface SpdyUpgrade {
  readonly status: number;
  /** The response head (status line and headers). */
  readonly head: string;
  /** The negotiated X-Stream-Protocol-Version ('' when none). */
  readonly protocol: string;
  readonly conn: SpdyConnection | undefined;
  /** The response body bytes received with a refused upgrade. */
  readonly body: Buffer;
}

/** Upgrades `path` on 127.0.0.1:port to SPDY/3.1 offering `protocols`; a refusal resolves with its status and no connection. */
export function spdyUpgrade(port: number, path: string, protocols: readonly string[]): Promise<SpdyUpgrade> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer): void => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.off('error', reject);
      const head = buf.subarray(0, end).toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const protocol = /\r\nX-Stream-Protocol-Version: *([^\r\n]*)/i.exec(head)?.[1] ?? '';
      const rest = buf.subarray(end + 4);
      if (status !== 101) {
        socket.on('data', (more: Buffer) => void (buf = Buffer.concat([buf, more])));
        socket.once('close', () => resolve({ status, head, protocol, conn: undefined, body: buf.subarray(end + 4) }));
        return;
      }
      resolve({ status, head, protocol, conn: new SpdyConnection(socket, rest), body: Buffer.alloc(0) });
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n` +
        protocols.map((p) => `X-Stream-Protocol-Version: ${p}\r\n`).join('') +
        '\r\n',
    );
  });
}

interface StreamState {
  data: Buffer[];
  ended: boolean;
  waiters: Array<() => void>;
}

export class SpdyConnection {
  private readonly deflate: Deflate = createDeflate({ dictionary: SPDY3_DICTIONARY });
  private readonly streams = new Map<number, StreamState>();
  private nextId = 1;
  private buf: Buffer;
  /** Resolves when the connection closed. */
  readonly closed: Promise<void>;

  constructor(private readonly socket: Socket, first: Buffer) {
    this.buf = first;
    this.closed = new Promise((r) => socket.once('close', () => r()));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      this.deflate.close();
      for (const s of this.streams.values()) this.end(s);
    });
    socket.on('data', (d: Buffer) => this.receive(d));
    this.receive(Buffer.alloc(0));
  }

  /** Opens a client stream with these headers (names lower-case); resolves its id. Call one at a time (shared compression context). */
  async open(headers: Record<string, string>, fin = false): Promise<number> {
    const entries = Object.entries(headers);
    const parts: Buffer[] = [u32(entries.length)];
    for (const [k, v] of entries) parts.push(u32(Buffer.byteLength(k)), Buffer.from(k), u32(Buffer.byteLength(v)), Buffer.from(v));
    const block = await this.compress(Buffer.concat(parts));
    const id = this.nextId;
    this.nextId += 2;
    this.streams.set(id, { data: [], ended: false, waiters: [] });
    const body = Buffer.concat([u32(id), u32(0), Buffer.from([0, 0]), block]);
    this.socket.write(Buffer.concat([control(SYN_STREAM, fin ? FLAG_FIN : 0, body.length), body]));
    return id;
  }

  write(id: number, data: Buffer, fin = false): void {
    this.socket.write(Buffer.concat([u32(id), Buffer.from([fin ? FLAG_FIN : 0]), u24(data.length), data]));
  }

  /** What stream `id` received so far. */
  data(id: number): Buffer {
    return Buffer.concat(this.streams.get(id)?.data ?? []);
  }

  /** Resolves once stream `id` received at least `n` bytes, ended, or the connection closed. */
  waitFor(id: number, n: number): Promise<Buffer> {
    const s = this.streams.get(id);
    if (s === undefined) return Promise.resolve(Buffer.alloc(0));
    return new Promise((resolve) => {
      const check = (): void => {
        const all = Buffer.concat(s.data);
        if (all.length >= n || s.ended) resolve(all);
        else s.waiters.push(check);
      };
      check();
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private async compress(block: Buffer): Promise<Buffer> {
    const out: Buffer[] = [];
    const on = (c: Buffer): number => out.push(c);
    this.deflate.on('data', on);
    this.deflate.write(block);
    await new Promise<void>((r) => this.deflate.flush(constants.Z_SYNC_FLUSH, () => r()));
    await new Promise<void>((r) => setImmediate(r));
    this.deflate.off('data', on);
    return Buffer.concat(out);
  }

  private end(s: StreamState): void {
    s.ended = true;
    for (const w of s.waiters.splice(0)) w();
  }

  private receive(d: Buffer): void {
    this.buf = Buffer.concat([this.buf, d]);
    while (this.buf.length >= 8) {
      const len = this.buf.readUIntBE(5, 3);
      if (this.buf.length < 8 + len) return;
      const frame = this.buf.subarray(0, 8 + len);
      this.buf = this.buf.subarray(8 + len);
      const flags = frame[4] ?? 0;
      if (((frame[0] ?? 0) & 0x80) === 0) {
        const id = frame.readUInt32BE(0) & 0x7fffffff;
        const s = this.streams.get(id);
        if (len > 0) {
          s?.data.push(Buffer.from(frame.subarray(8)));
          const ack = Buffer.concat([u32(id), u32(len)]);
          this.socket.write(Buffer.concat([control(WINDOW_UPDATE, 0, 8), ack]));
        }
        if (s !== undefined) {
          for (const w of s.waiters.splice(0)) w();
          if ((flags & FLAG_FIN) !== 0) this.end(s);
        }
        continue;
      }
      const type = frame.readUInt16BE(2);
      if (type === PING) this.socket.write(frame);
      else if (type === RST_STREAM) {
        const s = this.streams.get(frame.readUInt32BE(8) & 0x7fffffff);
        if (s !== undefined) this.end(s);
      } else if (type === GOAWAY) for (const s of this.streams.values()) this.end(s);
    }
  }
}

function control(type: number, flags: number, length: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt16BE(0x8003, 0);
  b.writeUInt16BE(type, 2);
  b[4] = flags;
  b.writeUIntBE(length, 5, 3);
  return b;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function u24(n: number): Buffer {
  const b = Buffer.alloc(3);
  b.writeUIntBE(n, 0, 3);
  return b;
}
