/**
 * A host's projection as the quads draw's depth test uses it (EncodeOptions.hostDepth,
 * docs/API.md "Composing with a host"): the host's NDC z of a view depth d as
 * z = s0 + s1 / d. Standard: z = far (d - near) / (d (far - near)), so s0 = far / (far - near),
 * s1 = -near far / (far - near); reversed-Z: z = near (far - d) / (d (far - near)), so
 * s0 = -near / (far - near), s1 = near far / (far - near). An infinite far plane: (1, -near),
 * reversed (0, near).
 */
export function hostNdcZ(p: { near: number; far: number; reversed?: boolean }): [number, number] {
  if (!(p.near > 0) || !(p.far > p.near)) throw new RangeError(`hostDepth: need 0 < near < far, got near ${p.near}, far ${p.far}`);
  const b = p.far === Infinity ? 0 : p.near / p.far;
  // far / (far - near) = 1 / (1 - b); near far / (far - near) = near / (1 - b); near / (far - near) = b / (1 - b)
  return p.reversed ? [-b / (1 - b), p.near / (1 - b)] : [1 / (1 - b), -p.near / (1 - b)];
}

/** A depth format with a stencil aspect (a read-only attachment of it is stencil-read-only too). */
export function hasStencil(format: GPUTextureFormat): boolean {
  return format.includes('stencil');
}
