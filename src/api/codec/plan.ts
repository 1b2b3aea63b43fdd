// The schema graph every converter is compiled from: one MessagePlan per
// message of proto/platform, one FieldPlan per field, with the API's special
// types (Time, Quantity, ...) recognised once here so the hot paths never look
// at protobufjs reflection. Built once per process by the loader (index.ts);
// the graph is immutable afterwards apart from the compiled closures that
// convert.ts attaches.

import type { MapField, Root, Type } from 'protobufjs';
import type { WireReader } from './wire.js';

/** How a field's value looks in JSON; special kinds are whole messages with a scalar JSON form. */
export type ValueKind =
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'bytes' // base64 string
  | 'message'
  | 'time' // metav1.Time: RFC 3339 seconds
  | 'microtime' // metav1.MicroTime: RFC 3339 microseconds
  | 'quantity' // resource.Quantity: string (a number is accepted)
  | 'intorstring' // intstr.IntOrString: number or string
  | 'fieldsv1' // metav1.FieldsV1: a JSON object kept as JSON bytes
  | 'rawextension' // runtime.RawExtension: any JSON value kept as JSON bytes
  | 'stringlist'; // Verbs / ExtraValue: a message of `repeated string items = 1`, an array in JSON

export type Label = 'optional' | 'repeated' | 'map';

/** Writes one value with its tag; `tag` already holds number and wire type. */
export type ValueEncoder = (v: unknown, w: ProtoWriter, tag: number) => void;
/** Reads one value whose tag was consumed; undefined means "leave the key out". */
export type ValueDecoder = (r: WireReader) => unknown;

/** The subset of protobufjs' Writer the encoders use. */
export interface ProtoWriter {
  uint32(v: number): ProtoWriter;
  int32(v: number): ProtoWriter;
  int64(v: number): ProtoWriter;
  bool(v: boolean): ProtoWriter;
  string(v: string): ProtoWriter;
  bytes(v: Uint8Array): ProtoWriter;
  fork(): ProtoWriter;
  ldelim(): ProtoWriter;
  finish(): Uint8Array;
}

export interface FieldPlan {
  /** The JSON name: the proto field name except where JSON_NAMES says otherwise. */
  readonly name: string;
  readonly id: number;
  readonly kind: ValueKind;
  readonly label: Label;
  /**
   * A Go embedded struct (`json:",inline"`): its fields appear in the parent's
   * JSON object, e.g. Volume.volumeSource, Probe.handler.
   */
  readonly inline: boolean;
  /** A field a decode leaves out when its caller asks (DecodeOptions.omitManagedFields): ObjectMeta.managedFields. */
  readonly omittable: boolean;
  /** The message of a `message` field (or map value). */
  message: MessagePlan | undefined;
  /** Tag of one occurrence, wire type included. */
  tag: number;
  /** Wire type of one value (of a map: of the entry's value). */
  wireType: number;
  encodeValue: ValueEncoder;
  decodeValue: ValueDecoder;
}

export interface MessagePlan {
  /** Without the leading dot, e.g. `platform.io.api.core.v1.Pod`. */
  readonly fullName: string;
  readonly fields: FieldPlan[];
  readonly byId: (FieldPlan | undefined)[];
  readonly byName: Map<string, FieldPlan>;
  /** The JSON keys of this message: its own fields plus those of inline fields (recursively), each with the field that holds it. */
  readonly jsonFields: Map<string, FieldPlan>;
  /** Writes the fields of `obj` (a JSON-form object) in declaration order. */
  encode(obj: Record<string, unknown>, w: ProtoWriter): void;
  /** Reads fields up to `end` into `into` (default a new object); keys in wire order. */
  decode(r: WireReader, end: number, into?: Record<string, unknown>): Record<string, unknown>;
  /** An empty plain object for this message's decoded form (what `decode` fills by default; see shape.ts on why per message). */
  create(): Record<string, unknown>;
}

const SPECIAL: Record<string, ValueKind> = {
  'platform.io.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'platform.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'microtime',
  'platform.io.apimachinery.pkg.apis.meta.v1.FieldsV1': 'fieldsv1',
  'platform.io.apimachinery.pkg.apis.meta.v1.Verbs': 'stringlist',
  'platform.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'platform.io.apimachinery.pkg.util.intstr.IntOrString': 'intorstring',
  'platform.io.apimachinery.pkg.runtime.RawExtension': 'rawextension',
  'platform.io.api.authentication.v1.ExtraValue': 'stringlist',
  'platform.io.api.authorization.v1.ExtraValue': 'stringlist',
  'platform.io.api.certificates.v1.ExtraValue': 'stringlist',
};

/** Embedded Go structs whose fields JSON inlines (besides every `localObjectReference`). */
const INLINE_FIELDS = new Set([
  'platform.io.api.core.v1.Volume.volumeSource',
  'platform.io.api.core.v1.Probe.handler',
  'platform.io.api.core.v1.EphemeralContainer.ephemeralContainerCommon',
]);

/** Fields whose JSON name differs from the proto name (upstream's Go json tag wins). */
const JSON_NAMES: Record<string, string> = {
  'platform.io.api.authentication.v1.BoundObjectReference.uID': 'uid',
};

/** The fields DecodeOptions can leave out (see FieldPlan.omittable). */
const OMITTABLE = new Set(['platform.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.managedFields']);

const SCALAR: Record<string, ValueKind> = { string: 'string', bool: 'bool', int32: 'int32', int64: 'int64', bytes: 'bytes' };

export const WIRE_TYPE: Record<ValueKind, number> = {
  string: 2, bool: 0, int32: 0, int64: 0, bytes: 2, message: 2, time: 2, microtime: 2, quantity: 2, intorstring: 2, fieldsv1: 2, rawextension: 2, stringlist: 2,
};

const unset = (): never => {
  throw new Error('codec plan used before compile');
};

/**
 * Builds the plan graph of every message in `root` (resolved). Field plans get
 * placeholder converters; convert.ts compiles the real ones.
 */
export function buildPlans(root: Root, protobuf: { Type: typeof Type; MapField: typeof MapField }): Map<string, MessagePlan> {
  const plans = new Map<string, MessagePlan>();
  const types: Type[] = [];
  const collect = (ns: { nestedArray: unknown[] }): void => {
    for (const o of ns.nestedArray) {
      if (o instanceof protobuf.Type) types.push(o);
      else if (typeof o === 'object' && o !== null && 'nestedArray' in o) collect(o as { nestedArray: unknown[] });
    }
  };
  collect(root);
  for (const t of types) {
    const fullName = t.fullName.slice(1);
    plans.set(fullName, { fullName, fields: [], byId: [], byName: new Map(), jsonFields: new Map(), encode: unset, decode: unset, create: unset });
  }
  for (const t of types) {
    const plan = plans.get(t.fullName.slice(1)) as MessagePlan;
    for (const f of t.fieldsArray) {
      f.resolve();
      const isMap = f instanceof protobuf.MapField;
      let kind: ValueKind;
      let message: MessagePlan | undefined;
      if (f.resolvedType === null) {
        const k = SCALAR[f.type];
        if (k === undefined) throw new Error(`${fullName(t)}.${f.name}: unsupported scalar type ${f.type}`);
        kind = k;
      } else {
        const target = f.resolvedType.fullName.slice(1);
        kind = SPECIAL[target] ?? 'message';
        if (kind === 'message') message = plans.get(target);
      }
      const inline = kind === 'message' && !isMap && !f.repeated && (INLINE_FIELDS.has(`${plan.fullName}.${f.name}`) || (f.name === 'localObjectReference' && message?.fullName === 'platform.io.api.core.v1.LocalObjectReference'));
      const fp: FieldPlan = { name: JSON_NAMES[`${plan.fullName}.${f.name}`] ?? f.name, id: f.id, kind, label: isMap ? 'map' : f.repeated ? 'repeated' : 'optional', inline, omittable: OMITTABLE.has(`${plan.fullName}.${f.name}`), message, tag: 0, wireType: 0, encodeValue: unset, decodeValue: unset };
      plan.fields.push(fp);
      plan.byId[f.id] = fp;
      plan.byName.set(fp.name, fp);
    }
  }
  for (const plan of plans.values()) flatten(plan, plan.jsonFields);
  return plans;
}

function flatten(plan: MessagePlan, into: Map<string, FieldPlan>): void {
  for (const f of plan.fields) {
    if (f.inline && f.message !== undefined) flatten(f.message, into);
    else into.set(f.name, f);
  }
}

function fullName(t: Type): string {
  return t.fullName.slice(1);
}
