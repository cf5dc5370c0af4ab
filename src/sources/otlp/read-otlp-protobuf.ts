/**
 * An `application/x-protobuf` OTLP logs request read in one pass with protobufjs's own wire `Reader`: each
 * log record straight into what the mapping reads (map-log-record.ts) — the attributes it maps, a body that is
 * a native event already as its event object — and handed on at the record's end, so no message objects,
 * `Long`s or key-value maps of unmapped attributes are built. Every other part of the message is walked
 * too, without building it, so that a request this reader accepts is one the generated decoder reads the
 * same way (decode-otlp-protobuf.ts).
 *
 * It reads the canonical encoding official encoders write: every known field with its wire type, each
 * message exactly as long as its length says, one member of an `AnyValue` set, no singular field twice, a
 * resource before its scopes, keys before values, values nested no deeper than the limit. Anything else
 * (a truncated body among it) answers `notCanonical`, and the caller reads the request with the generated
 * decoder instead: the answer is the same either way, only slower.
 */
import protobuf from 'protobufjs/minimal.js';
import {
  anyValueFields,
  arrayValueFields,
  exportLogsServiceRequestFields,
  instrumentationScopeFields,
  keyValueFields,
  keyValueListFields,
  logRecordFields,
  numbersOf,
  resourceFields,
  resourceLogsFields,
  scopeLogsFields,
  tagOf,
} from './otlp-field-numbers.ts';
import { conventionIndexOf, conventionKeys, isOtherAttribute, jsonOfBytes, jsonOfDouble, nativeKeys, timestampFields } from './map-log-record.ts';
import { setMember } from '../../core/set-member.ts';
import { ObjectShapes } from './object-shapes.ts';
import { maxValueDepth, type MappedLogRecord, type OtlpValue } from './otlp-logs.ts';

/** What reading answered: every record handed on, or a request that is not in the canonical encoding. */
export type OtlpReadOutcome = { readonly kind: 'read'; readonly records: number } | { readonly kind: 'notCanonical' };

/** Thrown inside the walk at the first sign of a non-canonical encoding. */
class NotCanonical extends Error {}

const requestResourceLogs = tagOf(exportLogsServiceRequestFields.resourceLogs);
const resourceLogsResource = tagOf(resourceLogsFields.resource);
const resourceLogsScopeLogs = tagOf(resourceLogsFields.scopeLogs);
const resourceLogsSchemaUrl = tagOf(resourceLogsFields.schemaUrl);
const resourceAttributes = tagOf(resourceFields.attributes);
const resourceDropped = tagOf(resourceFields.droppedAttributesCount);
const scopeLogsScope = tagOf(scopeLogsFields.scope);
const scopeLogsLogRecords = tagOf(scopeLogsFields.logRecords);
const scopeLogsSchemaUrl = tagOf(scopeLogsFields.schemaUrl);
const scopeName = tagOf(instrumentationScopeFields.name);
const scopeVersion = tagOf(instrumentationScopeFields.version);
const scopeAttributes = tagOf(instrumentationScopeFields.attributes);
const scopeDropped = tagOf(instrumentationScopeFields.droppedAttributesCount);
const recordTime = tagOf(logRecordFields.timeUnixNano);
const recordObserved = tagOf(logRecordFields.observedTimeUnixNano);
const recordSeverityNumber = tagOf(logRecordFields.severityNumber);
const recordSeverityText = tagOf(logRecordFields.severityText);
const recordBody = tagOf(logRecordFields.body);
const recordAttributes = tagOf(logRecordFields.attributes);
const recordDropped = tagOf(logRecordFields.droppedAttributesCount);
const recordFlags = tagOf(logRecordFields.flags);
const recordTraceId = tagOf(logRecordFields.traceId);
const recordSpanId = tagOf(logRecordFields.spanId);
const keyValueKey = tagOf(keyValueFields.key);
const keyValueValue = tagOf(keyValueFields.value);
const valueString = tagOf(anyValueFields.stringValue);
const valueBool = tagOf(anyValueFields.boolValue);
const valueInt = tagOf(anyValueFields.intValue);
const valueDouble = tagOf(anyValueFields.doubleValue);
const valueArray = tagOf(anyValueFields.arrayValue);
const valueKvlist = tagOf(anyValueFields.kvlistValue);
const valueBytes = tagOf(anyValueFields.bytesValue);
const arrayValues = tagOf(arrayValueFields.values);
const kvlistValues = tagOf(keyValueListFields.values);

const requestNumbers = numbersOf(exportLogsServiceRequestFields);
const resourceLogsNumbers = numbersOf(resourceLogsFields);
const resourceNumbers = numbersOf(resourceFields);
const scopeLogsNumbers = numbersOf(scopeLogsFields);
const scopeNumbers = numbersOf(instrumentationScopeFields);
const recordNumbers = numbersOf(logRecordFields);
const keyValueNumbers = numbersOf(keyValueFields);
const anyValueNumbers = numbersOf(anyValueFields);
const listNumbers = numbersOf(arrayValueFields);

/** What an `AnyValue` is read into: the mapping's value, the JSON value of a native event's member, or nothing (walked only). */
const Mode = { Value: 0, Json: 1, Skip: 2 } as const;
type Mode = (typeof Mode)[keyof typeof Mode];

/** The attributes of a record, or of its resource, the mapping reads: conventions by index, the others in order (otlp-logs.ts). */
interface AttributePart {
  readonly conventions: OtlpValue[];
  /** The conventions met (a bit each, by index): only the first of a repeated key counts. */
  met: number;
  readonly otherKeys: string[];
  readonly otherValues: OtlpValue[];
  otherCount: number;
  /** Names this part while it is filled (partSerials), in `keptIn`. */
  serial: number;
}

/** Serials of attribute parts: a new one each time a part is (re)filled. */
const partSerials = { last: 0 };

function emptyPart(): AttributePart {
  return { conventions: new Array<OtlpValue>(conventionKeys.length).fill(undefined), met: 0, otherKeys: [], otherValues: [], otherCount: 0, serial: ++partSerials.last | 0 };
}

/** Empties a part to be filled again (a record's, reused record after record), holding on to no value. */
function clearPart(part: AttributePart): void {
  // Loops, not `fill`: a call of the builtin costs more than a few stores.
  const conventions = part.conventions;
  for (let i = 0; i < conventions.length; i++) conventions[i] = undefined;
  part.met = 0;
  const values = part.otherValues;
  for (let i = 0; i < part.otherCount; i++) values[i] = undefined;
  part.otherCount = 0;
  part.serial = ++partSerials.last | 0;
}

/** Adds a header or native-field attribute to a part. */
function addOther(part: AttributePart, key: string, value: OtlpValue): void {
  part.otherKeys[part.otherCount] = key;
  part.otherValues[part.otherCount] = value;
  part.otherCount += 1;
}

/** Marks a singular field of a record read (`seen`: one bit each); a second one is not canonical. */
function onceMore(seen: number, bit: number): number {
  if ((seen & bit) !== 0) throw new NotCanonical();
  return seen | bit;
}

const noResource: AttributePart = emptyPart();
/** The shapes of the native events this thread read (object-shapes.ts). */
const shapes = new ObjectShapes();

/**
 * What the reader needs to know of a key: whether the mapping reads it as an attribute besides the
 * conventions (a header, a native field), whether it names a native event's (timestamp) field; and, above
 * these bits, the index of the convention it is, plus one (0: none).
 */
const keyOther = 1;
const keyNative = 2;
const keyTimestamp = 4;
const conventionShift = 3;

function flagsOf(key: string): number {
  return (isOtherAttribute(key) ? keyOther : 0) | (nativeKeys.has(key) ? keyNative : 0) | (timestampFields.has(key) ? keyTimestamp : 0) | ((conventionIndexOf(key) + 1) << conventionShift);
}

/**
 * Keys met before, found again by their bytes (a request repeats the same few dozen keys in every record):
 * a known key costs a comparison of its bytes instead of a new string, and comes interned, with what the
 * reader needs to know of it. One per thread; a slot holds the last ASCII key that fell in it.
 */
const keySlots = 1024;
const knownKeys: (string | undefined)[] = new Array<string | undefined>(keySlots).fill(undefined);
const knownFlags = new Uint16Array(keySlots);
/**
 * The serial of the attribute part that last kept a header or native-field attribute whose key is in each slot:
 * a part whose serial a key's slot does not hold has kept no attribute of that key (a key always falls in the
 * same slot), so the part's list need not be searched for it. Equal serials only mean the list is searched.
 */
const keptIn = new Int32Array(keySlots);
/** The bytes of each known key as words (keyWords), compared four bytes at a time. */
const knownWords: (Int32Array | undefined)[] = new Array<Int32Array | undefined>(keySlots).fill(undefined);

/**
 * A key's bytes as little-endian 32-bit words: each whole four bytes from its start, then, when its length is
 * no multiple of four, the four bytes that end it (a key shorter than four bytes is one word of its bytes).
 */
function keyWords(bytes: Buffer, start: number, length: number): Int32Array {
  if (length < 4) {
    let word = 0;
    for (let i = 0; i < length; i++) word |= (bytes[start + i] as number) << (8 * i);
    return Int32Array.of(word);
  }
  const whole = length >>> 2;
  const words = new Int32Array(whole + ((length & 3) === 0 ? 0 : 1));
  for (let w = 0; w < whole; w++) words[w] = bytes.readInt32LE(start + 4 * w);
  if ((length & 3) !== 0) words[whole] = bytes.readInt32LE(start + length - 4);
  return words;
}

/** Whether the `length` bytes at `start` (which lie within the body) are those of a known key, whose `words` are its keyWords. */
function holdsAt(view: DataView, bytes: Buffer, start: number, length: number, words: Int32Array): boolean {
  if (length < 4) {
    let word = 0;
    for (let i = 0; i < length; i++) word |= (bytes[start + i] as number) << (8 * i);
    return word === words[0];
  }
  const whole = length >>> 2;
  for (let w = 0; w < whole; w++) if (view.getInt32(start + 4 * w, true) !== words[w]) return false;
  return (length & 3) === 0 || view.getInt32(start + length - 4, true) === words[whole];
}

/** The same characters as `key`, as the string V8 keeps for property names. */
function interned(key: string): string {
  return Object.keys({ [key]: 0 })[0] ?? key;
}
const twoTo32 = 2 ** 32;

/** Reads one request; `onRecord` gets each record (and its 0-based position) as soon as it is read. */
export function readOtlpProtobuf(bytes: Buffer, onRecord: (record: MappedLogRecord, position: number) => void): OtlpReadOutcome {
  const walk = new Walk(bytes, onRecord);
  try {
    return { kind: 'read', records: walk.request() };
  } catch (error) {
    // A body that ends inside a field makes protobufjs's reader throw as well.
    if (error instanceof NotCanonical || error instanceof Error) return { kind: 'notCanonical' };
    throw error;
  }
}

class Walk {
  private readonly reader: protobuf.Reader;
  private readonly bytes: Buffer;
  /** The body's bytes, to read four at a time. */
  private readonly view: DataView;
  /** The body as Latin-1 text: an ASCII string of the body is a slice of it, without decoding. */
  private readonly text: string;
  private readonly onRecord: (record: MappedLogRecord, position: number) => void;
  private records = 0;
  /** The two halves of the last 64-bit integer read. */
  private lo = 0;
  private hi = 0;
  /** Whether the key-value list read last as a native body had a key of a native event. */
  private nativeKey = false;
  /** What `key` found of the key it read last (flagsOf), and its slot among the known keys (-1: none). */
  private flags = 0;
  private slot = -1;
  /** The slot of the key met at each position of a record's attributes, and of a native body, the last time. */
  private readonly attributeGuesses = new Int16Array(128).fill(-1);
  private readonly bodyGuesses = new Int16Array(128).fill(-1);
  /** The members of the native body being read, built into its object at its end (object-shapes.ts). */
  private readonly bodyKeys: string[] = [];
  /** The items of the arrays being read, by depth (array). */
  private readonly arrayItems: unknown[][] = [];
  /** A record's attributes, read into the same part record after record. */
  private readonly recordPart = emptyPart();
  private readonly bodyValues: unknown[] = [];

  constructor(bytes: Buffer, onRecord: (record: MappedLogRecord, position: number) => void) {
    this.bytes = bytes;
    this.reader = protobuf.Reader.create(bytes);
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.text = bytes.toString('latin1');
    this.onRecord = onRecord;
  }

  request(): number {
    const r = this.reader;
    while (r.pos < r.len) {
      const tag = this.uint32();
      if (tag === requestResourceLogs) this.resourceLogs();
      else this.unknown(tag, requestNumbers);
    }
    return this.records;
  }

  private resourceLogs(): void {
    const r = this.reader;
    const end = this.enter();
    let resource: AttributePart | undefined;
    let scopes = 0;
    while (r.pos < end) {
      const tag = this.uint32();
      switch (tag) {
        case resourceLogsResource:
          // The records of a scope are handed on as they are read, so their resource must come first.
          if (resource !== undefined || scopes > 0) throw new NotCanonical();
          resource = this.resource();
          break;
        case resourceLogsScopeLogs:
          scopes += 1;
          this.scopeLogs(resource ?? noResource);
          break;
        case resourceLogsSchemaUrl:
          this.skipDelimited();
          break;
        default:
          this.unknown(tag, resourceLogsNumbers);
      }
    }
    this.leave(end);
  }

  private resource(): AttributePart {
    const r = this.reader;
    const end = this.enter();
    const attributes = emptyPart();
    while (r.pos < end) {
      const tag = this.uint32();
      if (tag === resourceAttributes) this.attribute(attributes, -1);
      else if (tag === resourceDropped) r.skip();
      else this.unknown(tag, resourceNumbers);
    }
    this.leave(end);
    return attributes;
  }

  private scopeLogs(resource: AttributePart): void {
    const r = this.reader;
    const end = this.enter();
    while (r.pos < end) {
      const tag = this.uint32();
      if (tag === scopeLogsLogRecords) this.logRecord(resource);
      else if (tag === scopeLogsScope) this.scope();
      else if (tag === scopeLogsSchemaUrl) this.skipDelimited();
      else this.unknown(tag, scopeLogsNumbers);
    }
    this.leave(end);
  }

  /** The instrumentation scope: not mapped, only walked. */
  private scope(): void {
    const r = this.reader;
    const end = this.enter();
    while (r.pos < end) {
      const tag = this.uint32();
      if (tag === scopeName || tag === scopeVersion) this.skipDelimited();
      else if (tag === scopeAttributes) this.keyValue(Mode.Skip, 0);
      else if (tag === scopeDropped) r.skip();
      else this.unknown(tag, scopeNumbers);
    }
    this.leave(end);
  }

  private logRecord(resource: AttributePart): void {
    const r = this.reader;
    const end = this.enter();
    let time = 0n;
    let observed = 0n;
    let body: OtlpValue;
    let nativeEvent: Record<string, unknown> | undefined;
    // Handed on with the record and read before the next one (the mapping keeps nothing of it).
    const attributes = this.recordPart;
    clearPart(attributes);
    let traceId = '';
    let spanId = '';
    let attributeCount = 0;
    /** Singular fields read, one bit each. */
    let seen = 0;
    while (r.pos < end) {
      const tag = this.uint32();
      switch (tag) {
        case recordAttributes:
          this.attribute(attributes, attributeCount++);
          break;
        case recordBody: {
          seen = onceMore(seen, 1);
          const read = this.body();
          if (read instanceof NativeBody) nativeEvent = read.event;
          else body = read;
          break;
        }
        case recordTime:
          seen = onceMore(seen, 2);
          time = this.fixed64();
          break;
        case recordObserved:
          seen = onceMore(seen, 4);
          observed = this.fixed64();
          break;
        case recordTraceId:
          seen = onceMore(seen, 8);
          traceId = this.hex();
          break;
        case recordSpanId:
          seen = onceMore(seen, 16);
          spanId = this.hex();
          break;
        case recordSeverityNumber:
        case recordDropped:
          r.skip();
          break;
        case recordSeverityText:
          this.skipDelimited();
          break;
        case recordFlags:
          r.skip(4);
          break;
        default:
          this.unknown(tag, recordNumbers);
      }
    }
    this.leave(end);
    // The resource's attributes stand in where the record has none of its own.
    const conventions = attributes.conventions;
    // (A resource that met no convention has none to give: the usual case, `service.name` and the like.)
    if (resource.met !== 0) for (let i = 0; i < conventions.length; i++) if (conventions[i] === undefined) conventions[i] = resource.conventions[i];
    const own = attributes.otherCount;
    for (let r = 0; r < resource.otherCount; r++) {
      const key = resource.otherKeys[r] as string;
      let has = false;
      for (let i = 0; i < own && !has; i++) has = attributes.otherKeys[i] === key;
      if (!has) addOther(attributes, key, resource.otherValues[r]);
    }
    const record: MappedLogRecord = { timeUnixNano: time, observedTimeUnixNano: observed, body, nativeEvent, attributes, traceId, spanId };
    this.onRecord(record, this.records++);
  }

  /**
   * A record's body: a string as it is (it may be an event's JSON text), a key-value list holding a native
   * event's key as that event's object, anything else walked only (the mapping reads no other body).
   */
  private body(): OtlpValue | NativeBody {
    const r = this.reader;
    const end = this.enter();
    let body: OtlpValue | NativeBody;
    let members = 0;
    while (r.pos < end) {
      const tag = this.uint32();
      if (tag === valueString) {
        members += 1;
        body = this.string();
      } else if (tag === valueKvlist) {
        members += 1;
        this.nativeKey = false;
        const event = this.kvlist(Mode.Json, 0, true) as Record<string, unknown>;
        body = this.nativeKey ? new NativeBody(event) : undefined;
      } else if (this.member(tag, Mode.Skip, 0, false) === noMember) {
        this.unknown(tag, anyValueNumbers);
      } else {
        members += 1;
        body = undefined;
      }
    }
    this.leave(end);
    if (members > 1) throw new NotCanonical();
    return body;
  }

  /**
   * One attribute of a record (its `position` among them) or of a resource (-1) into `part`, when the mapping
   * reads its key and it is the key's first; walked only otherwise. A key without a value counts as the key's
   * first too, its value empty.
   */
  private attribute(part: AttributePart, position: number): void {
    const r = this.reader;
    const end = this.enter();
    let key: string | undefined;
    let flags = 0;
    let slot = -1;
    let valued = false;
    while (r.pos < end) {
      const tag = this.uint32();
      if (tag === keyValueKey) {
        if (key !== undefined || valued) throw new NotCanonical();
        key = position >= 0 ? this.key(this.attributeGuesses, position) : this.key();
        flags = this.flags;
        slot = this.slot;
      } else if (tag === keyValueValue) {
        if (valued) throw new NotCanonical();
        valued = true;
        if (key !== undefined && this.isFirst(part, key, flags, slot)) this.keep(part, key, flags, slot, this.anyValue(Mode.Value, 0, false) as OtlpValue);
        else this.anyValue(Mode.Skip, 0, false);
      } else {
        this.unknown(tag, keyValueNumbers);
      }
    }
    this.leave(end);
    if (!valued && key !== undefined && this.isFirst(part, key, flags, slot)) this.keep(part, key, flags, slot, undefined);
  }

  /** Whether the mapping reads the key, and `part` has none of it yet. */
  private isFirst(part: AttributePart, key: string, flags: number, slot: number): boolean {
    const convention = (flags >> conventionShift) - 1;
    if (convention >= 0) return (part.met & (1 << convention)) === 0;
    if ((flags & keyOther) === 0) return false;
    if (slot >= 0 && keptIn[slot] !== part.serial) return true;
    for (let i = 0; i < part.otherCount; i++) if (part.otherKeys[i] === key) return false;
    return true;
  }

  private keep(part: AttributePart, key: string, flags: number, slot: number, value: OtlpValue): void {
    const convention = (flags >> conventionShift) - 1;
    if (convention >= 0) {
      part.met |= 1 << convention;
      part.conventions[convention] = value;
    } else {
      if (slot >= 0) keptIn[slot] = part.serial;
      addOther(part, key, value);
    }
  }

  /** One `KeyValue` walked (a scope's attributes: the mapping reads none of them). */
  private keyValue(mode: Mode, depth: number): void {
    const r = this.reader;
    const end = this.enter();
    let keyed = false;
    let valued = false;
    while (r.pos < end) {
      const tag = this.uint32();
      if (tag === keyValueKey) {
        if (keyed || valued) throw new NotCanonical();
        keyed = true;
        this.skipDelimited();
      } else if (tag === keyValueValue) {
        if (valued) throw new NotCanonical();
        valued = true;
        this.anyValue(mode, depth, false);
      } else {
        this.unknown(tag, keyValueNumbers);
      }
    }
    this.leave(end);
  }

  /** One `AnyValue` message read as `mode` says (`timestamp`: a native event's timestamp member). */
  private anyValue(mode: Mode, depth: number, timestamp: boolean): unknown {
    if (depth > maxValueDepth) throw new NotCanonical();
    const r = this.reader;
    const end = this.enter();
    let value: unknown = mode === Mode.Json ? null : undefined;
    let members = 0;
    // The usual value: a string, alone in its message (the tag is one byte).
    if (mode !== Mode.Skip && r.pos < end && r.buf[r.pos] === valueString) {
      r.pos += 1;
      value = this.string();
      if (r.pos === end) return value;
      members = 1;
    }
    while (r.pos < end) {
      const tag = this.uint32();
      const read = this.member(tag, mode, depth, timestamp);
      if (read === noMember) this.unknown(tag, anyValueNumbers);
      else {
        members += 1;
        value = read;
      }
    }
    this.leave(end);
    if (members > 1) throw new NotCanonical();
    return value;
  }

  /** The member of an `AnyValue` that `tag` introduces, read as `mode` says; `noMember` for another field. */
  private member(tag: number, mode: Mode, depth: number, timestamp: boolean): unknown {
    const r = this.reader;
    switch (tag) {
      case valueString:
        if (mode === Mode.Skip) return this.skipDelimited();
        return this.string();
      case valueBool:
        return r.bool();
      case valueInt:
        this.varint64();
        if (mode === Mode.Value) return this.integer();
        return mode === Mode.Json ? this.jsonInteger(timestamp) : undefined;
      case valueDouble: {
        const value = r.double();
        return mode === Mode.Json ? jsonOfDouble(value, timestamp) : value;
      }
      case valueArray:
        return this.array(mode, depth);
      case valueKvlist:
        return this.kvlist(mode, depth, false);
      case valueBytes: {
        if (mode === Mode.Skip) return this.skipDelimited();
        const bytes = r.bytes();
        return mode === Mode.Json ? jsonOfBytes(bytes) : bytes;
      }
      default:
        return noMember;
    }
  }

  /** An array value; read (not walked only), it is made at its final length, as `JSON.parse` makes one. */
  private array(mode: Mode, depth: number): unknown {
    const r = this.reader;
    const end = this.enter();
    // The items of the arrays being read, one list per depth (arrays nest), reused from array to array.
    const items = mode === Mode.Skip ? undefined : (this.arrayItems[depth] ??= []);
    let count = 0;
    while (r.pos < end) {
      const tag = this.uint32();
      if (tag !== arrayValues) {
        this.unknown(tag, listNumbers);
        continue;
      }
      const item = this.anyValue(mode, depth + 1, false);
      if (items !== undefined) items[count++] = item;
    }
    this.leave(end);
    if (items === undefined) return undefined;
    const array = count === 0 ? [] : count === 1 ? [items[0]] : count === 2 ? [items[0], items[1]] : items.slice(0, count);
    for (let i = 0; i < count; i++) items[i] = undefined;
    return array;
  }

  /** A key-value list: a map (the first of a repeated key kept), an object, or walked only; `top`: a native body. */
  private kvlist(mode: Mode, depth: number, top: boolean): unknown {
    const r = this.reader;
    const end = this.enter();
    const map = mode === Mode.Value ? new Map<string, OtlpValue>() : undefined;
    const object = mode === Mode.Json && !top ? ({} as Record<string, unknown>) : undefined;
    let members = 0;
    while (r.pos < end) {
      const tag = this.uint32();
      if (tag !== kvlistValues) {
        this.unknown(tag, listNumbers);
        continue;
      }
      const entryEnd = this.enter();
      let key: string | undefined;
      let flags = 0;
      let valued = false;
      let value: unknown = mode === Mode.Json ? null : undefined;
      while (r.pos < entryEnd) {
        const entryTag = this.uint32();
        if (entryTag === keyValueKey) {
          if (key !== undefined || valued) throw new NotCanonical();
          key = top ? this.key(this.bodyGuesses, members) : this.key();
          flags = this.flags;
        } else if (entryTag === keyValueValue) {
          if (valued) throw new NotCanonical();
          valued = true;
          value = this.anyValue(mode, depth + 1, top && (flags & keyTimestamp) !== 0);
        } else {
          this.unknown(entryTag, keyValueNumbers);
        }
      }
      this.leave(entryEnd);
      const name = key ?? '';
      if (map !== undefined) {
        if (!map.has(name)) map.set(name, value as OtlpValue);
      } else if (object !== undefined) {
        if (!Object.hasOwn(object, name)) setMember(object, name, value);
      } else if (top) {
        this.bodyKeys[members] = name;
        this.bodyValues[members] = value;
        members += 1;
        if ((flags & keyNative) !== 0) this.nativeKey = true;
      }
    }
    this.leave(end);
    if (top) {
      const event = shapes.build(this.bodyKeys, this.bodyValues, members);
      for (let i = 0; i < members; i++) this.bodyValues[i] = undefined;
      return event;
    }
    return map ?? object;
  }

  /** A string: a slice of the Latin-1 text when it is ASCII (the usual case), decoded as UTF-8 otherwise. */
  private string(): string {
    const r = this.reader;
    const length = this.uint32();
    const start = r.pos;
    const end = start + length;
    if (end > r.len) throw new NotCanonical();
    r.pos = end;
    return this.isAscii(start, end) ? this.text.slice(start, end) : this.bytes.toString('utf8', start, end);
  }

  /** Whether the body's bytes from `start` to `end` are ASCII: four at a time, then the last few one by one. */
  private isAscii(start: number, end: number): boolean {
    const view = this.view;
    let i = start;
    for (; i + 4 <= end; i += 4) if ((view.getInt32(i, true) & 0x80808080) !== 0) return false;
    const bytes = this.bytes;
    for (; i < end; i++) if ((bytes[i] as number) >= 0x80) return false;
    return true;
  }

  /** A key, with its flags in `flags`: from the known keys when its bytes are one of them. */
  private key(guesses?: Int16Array, position = 0): string {
    const r = this.reader;
    const length = this.uint32();
    const start = r.pos;
    const end = start + length;
    if (end > r.len) throw new NotCanonical();
    r.pos = end;
    if (length === 0) {
      this.flags = 0;
      this.slot = -1;
      return '';
    }
    // The key at this position of the list the last time (records repeat their keys in the same order).
    const guessed = guesses !== undefined && position < guesses.length ? (guesses[position] as number) : -1;
    if (guessed >= 0) {
      const known = knownWords[guessed];
      if (known !== undefined && (knownKeys[guessed] as string).length === length && holdsAt(this.view, this.bytes, start, length, known)) {
        this.flags = knownFlags[guessed] as number;
        this.slot = guessed;
        return knownKeys[guessed] as string;
      }
    }
    const bytes = this.bytes;
    // Keys differ mostly in their ends (`http.request.header.…`): the length and the last bytes pick the slot.
    let hash = Math.imul(length, 0x9e3779b1);
    for (let i = end - 1, stop = Math.max(start, end - 12); i >= stop; i--) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
    const slot = (hash ^ (hash >>> 15)) & (keySlots - 1);
    if (guesses !== undefined && position < guesses.length) guesses[position] = slot;
    const known = knownWords[slot];
    if (known !== undefined && (knownKeys[slot] as string).length === length && holdsAt(this.view, bytes, start, length, known)) {
      this.flags = knownFlags[slot] as number;
      this.slot = slot;
      return knownKeys[slot] as string;
    }
    if (!this.isAscii(start, end)) {
      const key = bytes.toString('utf8', start, end);
      this.flags = flagsOf(key);
      this.slot = -1;
      return key;
    }
    const key = interned(this.text.slice(start, end));
    this.flags = flagsOf(key);
    knownKeys[slot] = key;
    knownWords[slot] = keyWords(bytes, start, length);
    knownFlags[slot] = this.flags;
    this.slot = slot;
    return key;
  }

  /**
   * A varint of up to 32 bits: a tag or a length, almost always one byte, read here; longer ones (and a body
   * that ends) by protobufjs's `uint32`, whose closure-held temporary costs a call that is not inlined.
   */
  private uint32(): number {
    const r = this.reader;
    const pos = r.pos;
    if (pos < r.len) {
      const byte = r.buf[pos] as number;
      if (byte < 128) {
        r.pos = pos + 1;
        return byte;
      }
    }
    return r.uint32();
  }

  private skipDelimited(): undefined {
    this.reader.skip(this.uint32());
    return undefined;
  }

  private hex(): string {
    const bytes = this.reader.bytes();
    return bytes.length === 0 ? '' : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  }

  /** An unsigned fixed64 (timestamps). */
  private fixed64(): bigint {
    const r = this.reader;
    const lo = r.fixed32();
    const hi = r.fixed32();
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  /** Reads a varint of up to 64 bits into `lo` and `hi`, as protobufjs's reader does, without a `Long`. */
  private varint64(): void {
    const r = this.reader;
    const buf = r.buf;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (r.pos >= r.len) throw new NotCanonical();
      const b = buf[r.pos++] as number;
      if (i < 4) lo |= (b & 127) << (i * 7);
      else if (i === 4) {
        lo |= (b & 127) << 28;
        hi |= (b & 127) >> 4;
      } else hi |= (b & 127) << ((i - 5) * 7 + 3);
      if (b < 128) {
        this.lo = lo >>> 0;
        this.hi = hi >>> 0;
        return;
      }
    }
    throw new NotCanonical();
  }

  /** The last varint read as an OTLP int: a number when a double holds it exactly, a bigint otherwise (otlp-logs.ts). */
  private integer(): number | bigint {
    return this.hi < 0x200000 ? this.hi * twoTo32 + this.lo : this.bigint();
  }

  /** The last varint read as a signed 64-bit integer. */
  private bigint(): bigint {
    return BigInt.asIntN(64, (BigInt(this.hi) << 32n) | BigInt(this.lo));
  }

  /** The last varint read as a native event's member holds it (a timestamp keeps its digits). */
  private jsonInteger(timestamp: boolean): number | string {
    // Below 2^53 (and not negative) a double holds it exactly.
    if (this.hi < 0x200000) {
      const value = this.hi * twoTo32 + this.lo;
      return timestamp ? String(value) : value;
    }
    const value = this.bigint();
    return timestamp && value >= 0n ? value.toString() : Number(value);
  }

  /** Enters a length-delimited message: its end, which must lie within the body. */
  private enter(): number {
    const r = this.reader;
    const end = this.uint32() + r.pos;
    if (end > r.len) throw new NotCanonical();
    return end;
  }

  /** Leaves a message, whose last field must end exactly where its length said. */
  private leave(end: number): void {
    if (this.reader.pos !== end) throw new NotCanonical();
  }

  /** A field the message does not know is skipped; a known field with another wire type is not canonical. */
  private unknown(tag: number, known: ReadonlySet<number>): void {
    if (known.has(tag >>> 3)) throw new NotCanonical();
    this.reader.skipType(tag & 7);
  }
}

/** A body read as a native event's object. */
class NativeBody {
  readonly event: Record<string, unknown>;
  constructor(event: Record<string, unknown>) {
    this.event = event;
  }
}

/** What `member` answers for a field that is no member of `AnyValue`. */
const noMember = Symbol('no member');
