// TEMPORARY until the architecture refactor lands (renderer/pipeline/sh-wgsl.ts
// generates these from scenes/sh.ts): the SH constants as a WGSL prelude.
export const SH_WGSL = `
const SH_C0: f32 = 0.28209479177387814;
const SH_C1: f32 = 0.4886025119029199;
const SH_C2 = array<f32, 5>(1.0925484305920792, -1.0925484305920792, 0.31539156525252005,
                            -1.0925484305920792, 0.5462742152960396);
const SH_C3 = array<f32, 7>(-0.5900435899266435, 2.890611442640554, -0.4570457994644658,
                            0.3731763325901154, -0.4570457994644658, 1.445305721320277,
                            -0.5900435899266435);
`;
