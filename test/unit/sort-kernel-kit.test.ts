/**
 * The host side of the sort kernels' WGSL: module assembly (one prelude, `enable` first,
 * generated constants), and the parameter structs read from the WGSL with webgpu-utils:
 * each struct's size and field offsets as WGSL lays them out, so that the bytes the
 * sorters upload land where the kernels read them.
 */
import { describe, expect, it } from 'vitest';
import { deviceShortfall, sortModule, wgslConsts, wgslStruct } from '../../sort/kernel-kit';
import { createOnesweepFactory, onesweepFactory } from '../../sort/onesweep';
import { sorterFactories } from '../../sort/registry';
import radix4Common from '../../shaders/sort/radix4_common.wgsl?raw';
import radix4Prepare from '../../shaders/sort/radix4_prepare.wgsl?raw';
import radix16Common from '../../shaders/sort/radix16_common.wgsl?raw';
import radix16Prepare from '../../shaders/sort/radix16_prepare.wgsl?raw';
import onesweepCommon from '../../shaders/sort/onesweep_common.wgsl?raw';
import bitonicCommon from '../../shaders/sort/bitonic_common.wgsl?raw';
import bitonicPrepare from '../../shaders/sort/bitonic_prepare.wgsl?raw';

// webgpu-utils' reflection names shader stages by the WebGPU constants (a browser global).
(globalThis as { GPUShaderStage?: unknown }).GPUShaderStage ??= { VERTEX: 1, FRAGMENT: 2, COMPUTE: 4 };

const words = (b: ArrayBuffer) => [...new Uint32Array(b)];

describe('sort kernel modules', () => {
  it('sortModule puts `enable` first, then the generated constants and the prelude, once', () => {
    const code = sortModule(['enable subgroups;\nfn a() {}', 'enable subgroups;\nfn b() {}'], { X: 3, Y: true });
    expect(code.split('\n')[0]).toBe('enable subgroups;');
    expect(code.match(/enable subgroups;/g)).toHaveLength(1);
    expect(code).toContain('const X: u32 = 3u;');
    expect(code).toContain('const Y: bool = true;');
    expect(code.match(/fn linearWorkgroup/g)).toHaveLength(1);
    expect(code.match(/fn grid\(/g)).toHaveLength(1);
    expect(code.indexOf('const X')).toBeLessThan(code.indexOf('fn linearWorkgroup'));
    expect(code.indexOf('fn linearWorkgroup')).toBeLessThan(code.indexOf('fn a()'));
  });

  it('no sort kernel file repeats the prelude', async () => {
    const fs = await import('node:fs');
    const dir = new URL('../../shaders/sort/', import.meta.url);
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.wgsl') && n !== 'sort_prelude.wgsl')) {
      const src = fs.readFileSync(new URL(f, dir), 'utf8');
      expect(src, f).not.toMatch(/fn linearWorkgroup|fn grid\(|override MAX_WORKGROUPS_PER_DIM/);
    }
  });

  it('wgslConsts writes u32 and bool consts and refuses what is not a u32', () => {
    expect(wgslConsts({ A: 0xffffffff, B: false })).toContain('const A: u32 = 4294967295u;\nconst B: bool = false;');
    expect(() => wgslConsts({ A: -1 })).toThrow(/A = -1/);
    expect(() => wgslConsts({ A: 1.5 })).toThrow(/u32/);
  });
});

describe('sort parameter structs, reflected from their WGSL', () => {
  it('radix4 and radix16: PassInfo, PrepareInfo, Params', () => {
    for (const [common, prepare, paramsSize] of [[radix4Common, radix4Prepare, 48], [radix16Common, radix16Prepare, 64]] as const) {
      const passInfo = wgslStruct(common, 'PassInfo');
      expect(passInfo.size).toBe(16);
      expect(words(passInfo.bytes({ shift: 4, digitMask: 15, nextDigitMask: 3, level: 2 }))).toEqual([4, 15, 3, 2]);
      const prepareInfo = wgslStruct(common + prepare, 'PrepareInfo');
      expect(prepareInfo.size).toBe(32);
      expect(prepareInfo.fieldWords('levelOffset')).toBe(4);
      expect(words(prepareInfo.bytes({ countIndex: 3, capacity: 1000, numLevels: 2, levelOffset: [0, 64, 128, 0] }))).toEqual([3, 1000, 2, 0, 0, 64, 128, 0]);
      expect(wgslStruct(common, 'Params').size).toBe(paramsSize);
    }
  });

  it('onesweep: PassInfo (eight u32), PrepareInfo, Params', () => {
    const passInfo = wgslStruct(onesweepCommon, 'PassInfo');
    expect(passInfo.size).toBe(32);
    const info = { shift: 8, digitMask: 255, passIndex: 1, passes: 4, lastMask: 255, statusOffset: 0, clearOffset: 0xffffffff, spinLimit: 4096 };
    expect(words(passInfo.bytes(info))).toEqual([8, 255, 1, 4, 255, 0, 0xffffffff, 4096]);
    expect(words(wgslStruct(onesweepCommon, 'PrepareInfo').bytes({ countIndex: 5, capacity: 7 }))).toEqual([5, 7]);
    expect(wgslStruct(onesweepCommon, 'Params').size).toBe(16);
  });

  it('bitonic: StepInfo, PrepareInfo, Params', () => {
    expect(words(wgslStruct(bitonicCommon, 'StepInfo').bytes({ blockSize: 8192, stride: 4096, flip: 1, twoSteps: 0 }))).toEqual([8192, 4096, 1, 0]);
    expect(words(wgslStruct(bitonicCommon + bitonicPrepare, 'PrepareInfo').bytes({ countIndex: 1, capacity: 9, keyMask: 0xffff }))).toEqual([1, 9, 0xffff, 0]);
    expect(wgslStruct(bitonicCommon, 'Params').size).toBe(16);
  });

  it('field offsets, and a view of its own to write again and again', () => {
    const stepInfo = wgslStruct(bitonicCommon, 'StepInfo');
    expect(['blockSize', 'stride', 'flip', 'twoSteps'].map((f) => stepInfo.fieldOffset(f))).toEqual([0, 4, 8, 12]);
    const view = stepInfo.view();
    expect(view).not.toBe(stepInfo.view());
    view.set({ stride: 7 });
    expect(words(view.arrayBuffer)).toEqual([0, 7, 0, 0]);
    expect(() => stepInfo.fieldOffset('nope')).toThrow(/nope/);
  });

  it('an unknown struct or field is an error naming it', () => {
    expect(() => wgslStruct(bitonicCommon, 'Nope')).toThrow(/Nope/);
    expect(() => wgslStruct(bitonicCommon, 'StepInfo').fieldWords('nope')).toThrow(/nope/);
  });
});

describe('what a strategy needs of a device', () => {
  // A device as the factories read it: limits, features, adapterInfo.
  const fakeDevice = (workgroupBytes: number, features: string[] = ['subgroups']) =>
    ({
      limits: {
        maxComputeInvocationsPerWorkgroup: 256,
        maxComputeWorkgroupSizeX: 256,
        maxStorageBuffersPerShaderStage: 8,
        maxComputeWorkgroupStorageSize: workgroupBytes,
      },
      features: new Set(features),
      adapterInfo: { subgroupMinSize: 8, subgroupMaxSize: 8 },
    }) as unknown as GPUDevice;

  it('deviceShortfall names the first limit that falls short', () => {
    const device = fakeDevice(16384);
    expect(deviceShortfall(device, { workgroupSize: 256, storageBuffers: 8, workgroupBytes: 16384 })).toBeUndefined();
    expect(deviceShortfall(device, { workgroupSize: 256, storageBuffers: 8, workgroupBytes: 20000 })).toBe(
      'needs 20000 bytes of workgroup memory, the device has 16384',
    );
    expect(deviceShortfall(device, { workgroupSize: 512, storageBuffers: 8, workgroupBytes: 1 })).toMatch(/512 invocations per workgroup/);
  });

  it("onesweep with 18 keys a thread is unsupported where workgroup memory is 32 KiB, with the reason; the default fits", () => {
    const small = fakeDevice(32768);
    const k18 = createOnesweepFactory({ keysPerThread: 18 });
    expect(k18.supported(small)).toBe(false);
    expect(k18.unsupportedReason?.(small)).toMatch(/keysPerThread 18 .* needs 36420 bytes of workgroup memory, the device has 32768/);
    expect(onesweepFactory.supported(small)).toBe(true);
    expect(k18.supported(fakeDevice(49152))).toBe(true);
  });

  it('every registry strategy runs with 32 KiB of workgroup memory (SwiftShader, lavapipe); at 16 KiB onesweep says why not', () => {
    const device = fakeDevice(32768);
    for (const f of sorterFactories) expect(f.unsupportedReason?.(device), f.name).toBeUndefined();
    const tight = fakeDevice(16384);
    for (const f of sorterFactories.filter((f) => f.name !== 'onesweep')) expect(f.unsupportedReason?.(tight), f.name).toBeUndefined();
    // Its rank counters alone (32 rows of 128 words) fill 16 KiB.
    expect(onesweepFactory.unsupportedReason?.(tight)).toMatch(/workgroup memory, the device has 16384/);
  });
});
