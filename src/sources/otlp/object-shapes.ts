/**
 * Plain objects built from lists of keys and values as fast as `JSON.parse` builds them. An object given
 * more than a few dozen members one computed key at a time becomes a slow "dictionary" object in V8 —
 * slower to build, and slower for every later stage that reads it (the checks, capture, filters, formats);
 * so does a copy of an object once the checks delete its last members (the raw headers). The events of a
 * request repeat the same keys in the same order, so a key list met again gets a maker of its own: a
 * function holding one object literal with those keys, which V8 creates as fast as it can create an object
 * (the way Fastify's serializers and ajv's validators are compiled). Its text quotes each key as JSON, so no
 * key can be anything but a member's name; a list with `__proto__` (which a literal would take for the
 * prototype) is always built member by member.
 */
import { setMember } from '../../core/set-member.ts';

/** How many key lists are kept (events of a few kinds in one request), and the most keys a kept one has. */
const keptShapes = 8;
const maxShapeKeys = 256;

type Maker = (values: readonly unknown[]) => Record<string, unknown>;

interface Shape {
  readonly keys: readonly string[];
  /** Made once the list is met a second time (a list met once is not worth compiling). */
  make: Maker | undefined;
}

/** The maker of objects with `keys` in this order: `{"k0": v[0], "k1": v[1], …}`. */
function makerOf(keys: readonly string[]): Maker {
  const members = keys.map((key, i) => `${JSON.stringify(key)}: v[${i}]`).join(',\n');
  return new Function('v', `return {\n${members}\n};`) as Maker;
}

/**
 * The members of one object being made, in order, before `ObjectShapes` builds it: reused object after object
 * (objects are made one at a time), so a record costs no growing lists of keys and values.
 */
export class MemberList {
  readonly keys: string[] = [];
  readonly values: unknown[] = [];
  count = 0;

  add(key: string, value: unknown): void {
    this.keys[this.count] = key;
    this.values[this.count] = value;
    this.count += 1;
  }

  /** Where the member `key` is among those added; -1 when it is not. */
  indexOf(key: string): number {
    for (let i = 0; i < this.count; i++) if (this.keys[i] === key) return i;
    return -1;
  }

  /** The object of the members added (as `ObjectShapes#build` makes it); the list then starts over. */
  build(shapes: ObjectShapes): Record<string, unknown> {
    const object = shapes.build(this.keys, this.values, this.count);
    this.clear();
    return object;
  }

  /** Starts over, holding on to no value. */
  clear(): void {
    // A loop, not `fill`: a call of the builtin costs more than a few dozen stores.
    for (let i = 0; i < this.count; i++) this.values[i] = undefined;
    this.count = 0;
  }
}

export class ObjectShapes {
  private readonly shapes: Shape[] = [];

  /** An object with `keys[i]` → `values[i]` for i < `count`, the first of a repeated key kept, as JSON.parse would make it. */
  build(keys: readonly string[], values: readonly unknown[], count: number): Record<string, unknown> {
    const shape = this.find(keys, count);
    if (shape !== undefined) {
      shape.make ??= makerOf(shape.keys);
      return shape.make(values);
    }
    const object: Record<string, unknown> = {};
    let plain = true;
    for (let i = 0; i < count; i++) {
      const key = keys[i] as string;
      if (Object.hasOwn(object, key)) plain = false;
      else setMember(object, key, values[i]);
      if (key === '__proto__') plain = false;
    }
    if (plain && count <= maxShapeKeys) this.keep(keys.slice(0, count));
    return object;
  }

  private find(keys: readonly string[], count: number): Shape | undefined {
    for (const shape of this.shapes) {
      if (shape.keys.length !== count) continue;
      let i = 0;
      while (i < count && shape.keys[i] === keys[i]) i++;
      if (i === count) return shape;
    }
    return undefined;
  }

  private keep(keys: readonly string[]): void {
    if (this.shapes.length >= keptShapes) this.shapes.pop();
    this.shapes.unshift({ keys, make: undefined });
  }
}
