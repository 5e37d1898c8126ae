/**
 * Files a newcomer's page must refuse in one line (issue 34 item 6), made in memory:
 * for the e2e newcomer test (test/e2e/newcomer.test.ts) and the timed walk
 * (bench/newcomer-walk.ts).
 */

/** A binary 3DGS PLY header declaring `n` SH0 vertices, padded with zeros to `size` bytes. */
export function shortPly(n: number, size: number): Buffer {
  const props = ['x', 'y', 'z', 'f_dc_0', 'f_dc_1', 'f_dc_2', 'opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3'];
  const header = Buffer.from(`ply\nformat binary_little_endian 1.0\nelement vertex ${n}\n${props.map((p) => `property float ${p}`).join('\n')}\nend_header\n`, 'ascii');
  return Buffer.concat([header, Buffer.alloc(size - header.length)]);
}

/** A GLB (KHR_gaussian_splatting) whose only buffer is a separate file. */
export function glbWithExternalBuffer(): Buffer {
  const json = Buffer.from(JSON.stringify({ asset: { version: '2.0' }, extensionsUsed: ['KHR_gaussian_splatting'], buffers: [{ uri: 'scene.bin', byteLength: 100 }] }));
  const pad = (4 - (json.length % 4)) % 4;
  const head = Buffer.alloc(20);
  head.writeUInt32LE(0x46546c67, 0);
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(20 + json.length + pad, 8);
  head.writeUInt32LE(json.length + pad, 12);
  head.writeUInt32LE(0x4e4f534a, 16);
  return Buffer.concat([head, json, Buffer.alloc(pad, 0x20)]);
}
