/**
 * A copy of `chunk`'s bytes that owns its memory, whatever the chunk's class: a
 * stream's chunk is valid only until the next is read (a reused read buffer), and
 * `chunk.slice()` is no copy when the chunk is a Node Buffer (Buffer's slice is a
 * view on the same memory, unlike Uint8Array's), which Node streams hand out.
 */
export function copyBytes(chunk: Uint8Array, start = 0): Uint8Array {
  return Uint8Array.prototype.slice.call(chunk, start);
}
