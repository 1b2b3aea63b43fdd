/*
 * glibc's malloc_trim(0) and mallinfo2() for the agent (src/heap/malloc-trim.ts).
 *
 * Why: Node allocates Buffers and much of its own state with malloc. A burst
 * of pod starts fills malloc's main arena with small blocks; most are freed
 * soon after, but a few long-lived ones end up above them, so glibc cannot
 * shrink the arena (it only gives back free memory at its top) and keeps
 * tens of MB it no longer uses (measured: 41 MB held, 5 MB in use, after 110
 * pods started and stopped). malloc_trim(0) hands every free page inside the
 * arenas back to the kernel (MADV_DONTNEED). Node has no binding for it.
 *
 * A Node-API module: the ABI is stable across Node versions, so one build
 * serves Node 20, 22 and 24. The few Node-API declarations it needs are
 * written out below (the documented C signatures), so building needs only a
 * C compiler, not Node's headers.
 */
#include <malloc.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
typedef struct napi_callback_info__ *napi_callback_info;
typedef int napi_status;
typedef napi_value (*napi_callback)(napi_env env, napi_callback_info info);

extern napi_status napi_create_function(napi_env env, const char *name, size_t length, napi_callback cb, void *data, napi_value *result);
extern napi_status napi_create_object(napi_env env, napi_value *result);
extern napi_status napi_create_double(napi_env env, double value, napi_value *result);
extern napi_status napi_get_boolean(napi_env env, bool value, napi_value *result);
extern napi_status napi_set_named_property(napi_env env, napi_value object, const char *name, napi_value value);

/* trim(): true when malloc gave memory back. */
static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result = NULL;
  napi_get_boolean(env, malloc_trim(0) == 1, &result);
  return result;
}

static void set_number(napi_env env, napi_value obj, const char *name, size_t value) {
  napi_value v;
  if (napi_create_double(env, (double)value, &v) == 0) napi_set_named_property(env, obj, name, v);
}

/* info(): { arenaBytes, inUseBytes, freeBytes, mmapBytes } from mallinfo2(). */
static napi_value info(napi_env env, napi_callback_info cbinfo) {
  (void)cbinfo;
  struct mallinfo2 mi = mallinfo2();
  napi_value obj = NULL;
  if (napi_create_object(env, &obj) != 0) return NULL;
  set_number(env, obj, "arenaBytes", mi.arena);
  set_number(env, obj, "inUseBytes", mi.uordblks);
  set_number(env, obj, "freeBytes", mi.fordblks);
  set_number(env, obj, "mmapBytes", mi.hblkhd);
  return obj;
}

static void export_function(napi_env env, napi_value exports, const char *name, napi_callback cb) {
  napi_value fn;
  if (napi_create_function(env, name, (size_t)-1, cb, NULL, &fn) == 0) napi_set_named_property(env, exports, name, fn);
}

/* Node looks this symbol up when a module does not register itself. */
__attribute__((visibility("default"))) napi_value napi_register_module_v1(napi_env env, napi_value exports) {
  export_function(env, exports, "trim", trim);
  export_function(env, exports, "info", info);
  return exports;
}

/* The Node-API version the module is built against (Node >= 18 reads it). */
__attribute__((visibility("default"))) int node_api_module_get_api_version_v1(void) { return 8; }
