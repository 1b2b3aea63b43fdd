// The ApiError a synchronous call throws (the test fails when it throws
// nothing or something else): for table tests of the API's pure functions.
import { ApiError } from '../../src/api/errors.js';

export function thrownApiError(f: () => unknown): ApiError {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('no error');
}
