/**
 * The project's import arrows, checked by `npm test` (test/unit/architecture.test.ts;
 * `npm run check:arch` alone). docs/ARCHITECTURE.md draws the same map. The DOM rule
 * (only app/ and renderer/api touch the DOM) is checked by tsconfig.core.json:
 * everything else is type-checked without the DOM library.
 */
const PRODUCT = '^(app|renderer|sort|scenes|shaders)/';
const TEST_FILE = '\\.test\\.ts$';

/**
 * The rooms of renderer/, bottom first: a room may import the rooms before it in
 * this list, never one after it. The frame's stages read in the order a frame runs
 * them (gpu-scene -> project -> order -> draw), under the frame that composes them.
 */
const ROOMS = [
  ['gpu', 'adapters and devices (a leaf)'],
  ['gpu-scene', "the scene's buffers on the GPU: layout, precision, paging"],
  ['stage', 'what every stage shares: the Frame block, the stage table, the draw arguments'],
  ['camera', 'camera maths and the controller'],
  ['project', 'the project pass'],
  ['order', 'the sort strategies'],
  ['draw', 'the draws (quads, tiles) behind one interface'],
  ['frame', 'SplatRenderer: one frame of the stages; the budget; offscreen'],
  ['lod', 'streamed LOD'],
  ['profile', 'profiler, figures, benchmark, auto'],
  ['api', 'the library'],
];

const layering = ROOMS.slice(0, -1).map(([room, what], i) => ({
  name: `renderer-${room}-uses-only-rooms-below`,
  comment: `renderer/${room} (${what}) may import ${ROOMS.slice(0, i).map(([r]) => r).join(', ') || 'no other room'} of renderer/, never a room above it.`,
  severity: 'error',
  from: { path: `^renderer/${room}/`, pathNot: TEST_FILE },
  to: { path: `^renderer/(${ROOMS.slice(i + 1).map(([r]) => r).join('|')})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'sort-is-generic',
      comment: 'sort/ is a key/value sort library: it knows nothing of splats, scenes, the renderer, bench or tests.',
      severity: 'error',
      from: { path: '^sort/', pathNot: TEST_FILE },
      to: { path: '^(app|renderer|scenes|bench|test)/|^shaders/(?!sort/)' },
    },
    {
      name: 'scenes-have-no-gpu',
      comment: 'scenes/ parses and generates splat clouds on the CPU: no renderer, sort, shaders or WebGPU.',
      severity: 'error',
      from: { path: '^scenes/', pathNot: TEST_FILE },
      to: { path: '^(app|renderer|sort|shaders|bench|test)/|(^|/)node_modules/(webgpu|webgpu-utils)/' },
    },
    {
      name: 'product-does-not-import-bench-or-test',
      comment: 'bench/ and test/ sit on top of the product; the CPU forward model in test/reference is the oracle the product is checked against.',
      severity: 'error',
      from: { path: PRODUCT, pathNot: TEST_FILE },
      to: { path: '^(bench|test)/' },
    },
    {
      name: 'the-page-is-the-top',
      comment: 'app/ (the page, index.html) sits on the library; nothing of the product or bench imports it.',
      severity: 'error',
      from: { path: '^(renderer|sort|scenes|shaders|bench)/' },
      to: { path: '^app/' },
    },
    {
      name: 'page-uses-only-the-public-api',
      comment: "The page (app/) is built on the library's public entry, renderer/api/index.ts, and its own UI modules: nothing else of the project (tests excepted).",
      severity: 'error',
      from: { path: '^app/', pathNot: TEST_FILE },
      to: { path: '^(renderer/|sort/|scenes/|shaders/)', pathNot: '^renderer/api/index\\.ts$' },
    },
    {
      name: 'gpu-room-is-a-leaf',
      comment: 'renderer/gpu opens adapters and devices; it depends on no other part of the project.',
      severity: 'error',
      from: { path: '^renderer/gpu/', pathNot: TEST_FILE },
      to: { path: '^(renderer/(?!gpu/)|sort|scenes|shaders)' },
    },
    ...layering.slice(1),
    {
      name: 'playcanvas-is-bench-only',
      comment: 'PlayCanvas is a devDependency for bench/playcanvas-frame.ts (the reference renderer we measure against); the product never uses it.',
      severity: 'error',
      from: { path: PRODUCT },
      to: { path: '(^|/)node_modules/playcanvas/' },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/|^\\.gpukit/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
