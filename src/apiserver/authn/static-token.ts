// Bearer tokens known up front: the --token-auth-file entries and the
// in-memory admin token of --admin-platformconfig. A map lookup; never blocks.
import type { UserInfo } from '../types.js';
import type { TokenAuthenticator } from './types.js';

export class StaticTokenAuthenticator implements TokenAuthenticator {
  private readonly tokens: Map<string, UserInfo>;

  constructor(tokens: ReadonlyMap<string, UserInfo> = new Map()) {
    this.tokens = new Map(tokens);
  }

  /** Adds (or replaces) one token; the composition root adds the admin token before the server listens. */
  add(token: string, user: UserInfo): void {
    this.tokens.set(token, user);
  }

  authenticate(token: string): Promise<UserInfo | undefined> {
    const user = this.tokens.get(token);
    return Promise.resolve(user);
  }
}
