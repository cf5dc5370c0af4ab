/**
 * Sets a member as JSON.parse would, `__proto__` included (an own member, not the object's prototype): a
 * header, an alias or an attribute may be called anything. Other names are plain assignments, which keep the
 * object in V8's fast shape.
 */
export function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}
