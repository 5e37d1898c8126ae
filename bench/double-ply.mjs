// A binary little-endian PLY with its vertex rows written twice (the same splats twice over):
// one scene of 2N splats equal to two objects of the N at the identity. Usage: node double-ply.mjs IN OUT
import fs from 'node:fs';
const [inp, out] = process.argv.slice(2);
const buf = fs.readFileSync(inp);
const end = buf.indexOf('end_header\n') + 'end_header\n'.length;
const header = buf.subarray(0, end).toString('latin1');
const n = Number(/element vertex (\d+)/.exec(header)[1]);
const body = buf.subarray(end);
if (!/format binary_little_endian/.test(header) || (header.match(/^element /gm) || []).length !== 1) throw new Error('one-element binary PLY only');
fs.writeFileSync(out, Buffer.concat([Buffer.from(header.replace(`element vertex ${n}`, `element vertex ${2 * n}`), 'latin1'), body, body]));
console.log(out);
