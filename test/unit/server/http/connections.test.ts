// The age cap and stop of the node servers' connection tracker, on fake sockets and an injected clock.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConnectionTracker } from '../../../../src/server/http/connections.js';

class FakeSocket extends EventEmitter {
  destroyed = false;
  ended = false;
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
  end(): void {
    this.ended = true;
  }
}

class FakeRes extends EventEmitter {
  shouldKeepAlive = true;
  headers: Record<string, string> = {};
  setHeader(k: string, v: string): void {
    this.headers[k] = v;
  }
}

const asDuplex = (s: FakeSocket): Duplex => s as unknown as Duplex;
const asRes = (r: FakeRes): ServerResponse => r as unknown as ServerResponse;

function setup() {
  let t = 0;
  const tracker = new ConnectionTracker(100, () => t);
  return { tracker, advance: (ms: number) => (t += ms) };
}

describe('ConnectionTracker', () => {
  it.each([
    ['idle, young', 50, 'idle', false],
    ['idle, past the cap', 100, 'idle', true],
    ['in flight, past the cap', 150, 'busy', false],
    ['upgraded, young', 50, 'upgraded', false],
    ['upgraded, past the cap', 100, 'upgraded', true],
  ] as const)('sweep: %s', (_n, age, state, destroyed) => {
    const { tracker, advance } = setup();
    const sock = new FakeSocket();
    tracker.add(asDuplex(sock));
    if (state === 'busy') tracker.request(asDuplex(sock), asRes(new FakeRes()));
    if (state === 'upgraded') tracker.upgraded(asDuplex(sock));
    advance(age);
    tracker.sweep();
    expect(sock.destroyed).toBe(destroyed);
  });

  it('a response in flight at the cap ends the connection after it; a request on an expired connection is its last', () => {
    const { tracker, advance } = setup();
    const sock = new FakeSocket();
    tracker.add(asDuplex(sock));
    const res = new FakeRes();
    tracker.request(asDuplex(sock), asRes(res));
    advance(100);
    res.emit('close');
    expect(sock.ended).toBe(true);
    const late = new FakeRes();
    tracker.request(asDuplex(sock), asRes(late));
    expect(late.shouldKeepAlive).toBe(false);
    expect(late.headers.Connection).toBe('close');
  });

  it('carriers of TLS streams are never swept, only closed on stop; closed sockets are forgotten', () => {
    const { tracker, advance } = setup();
    const carrier = new FakeSocket();
    const conn = new FakeSocket();
    const gone = new FakeSocket();
    tracker.addCarrier(asDuplex(carrier));
    tracker.add(asDuplex(conn));
    tracker.add(asDuplex(gone));
    gone.emit('close');
    expect(tracker.size).toBe(1);
    tracker.request(asDuplex(conn), asRes(new FakeRes()));
    advance(1000);
    tracker.sweep();
    expect([carrier.destroyed, conn.destroyed]).toEqual([false, false]);
    tracker.destroyAll();
    expect([carrier.destroyed, conn.destroyed]).toEqual([true, true]);
    expect(tracker.size).toBe(0);
  });
});
