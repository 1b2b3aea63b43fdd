// How decoded objects are made, so that a cache of thousands of them costs
// no more than JSON.parse's objects would. Used by convert.ts's decoders;
// synchronous and pure.

/**
 * A constructor for one message's decoded objects. Why not `{}`: a literal
 * starts with 4 in-object slots and spills further properties into a
 * separately allocated, over-grown backing store (a decoded pod took 5.7 KB
 * against JSON.parse's 3.1 KB), while objects made by one constructor share
 * its initial map, and V8's slack tracking sizes that map to the properties
 * its objects end up with (added after construction too). The prototype is
 * Object.prototype, so the objects are plain objects to every reader
 * (getPrototypeOf, constructor, structuredClone, deep equality).
 */
export function objectMaker(): () => Record<string, unknown> {
  const Plain = function (this: Record<string, unknown>) {} as unknown as new () => Record<string, unknown>;
  Plain.prototype = Object.prototype;
  return () => new Plain();
}
