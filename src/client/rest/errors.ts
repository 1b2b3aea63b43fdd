// The rest layer's own refusal: a request it will not send because the
// caller left out what the URL or body needs (a name, a namespace). Thrown
// synchronously-in-a-promise before anything reaches the Transport.
import { describeRequest, type RequestRef } from '../errors.js';

/** A call the client cannot turn into a request; `field` names what is missing (`metadata.name`, `namespace`). */
export class ClientRequestError extends Error {
  readonly request: RequestRef;
  readonly field: string;
  constructor(request: RequestRef, field: string, message: string) {
    super(`${describeRequest(request)}: ${field}: ${message}`);
    this.name = 'ClientRequestError';
    this.request = request;
    this.field = field;
  }
}

export const isClientRequestError = (e: unknown): e is ClientRequestError => e instanceof ClientRequestError;
