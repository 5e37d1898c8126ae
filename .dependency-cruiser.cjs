/**
 * The project's import arrows, checked by `npm test` (npm run check:deps).
 * docs/ARCHITECTURE.md draws the same map. The DOM rule (only renderer/viewer
 * touches the DOM) is checked by tsconfig.core.json: everything else is
 * type-checked without the DOM library.
 */
const PRODUCT = '^(renderer|sort|scenes|shaders)/';
const TEST_FILE = '\\.test\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'sort-is-generic',
      comment: 'sort/ is a key/value sort library: it knows nothing of splats, scenes, the renderer, bench or tests.',
      severity: 'error',
      from: { path: '^sort/', pathNot: TEST_FILE },
      to: { path: '^(renderer|scenes|bench|test)/|^shaders/(?!sort/)' },
    },
    {
      name: 'scenes-have-no-gpu',
      comment: 'scenes/ parses and generates splat clouds on the CPU: no renderer, sort, shaders or WebGPU.',
      severity: 'error',
      from: { path: '^scenes/', pathNot: TEST_FILE },
      to: { path: '^(renderer|sort|shaders|bench|test)/|(^|/)node_modules/(webgpu|webgpu-utils)/' },
    },
    {
      name: 'product-does-not-import-bench-or-test',
      comment: 'bench/ and test/ sit on top of the product; the CPU forward model in test/reference is the oracle the product is checked against.',
      severity: 'error',
      from: { path: PRODUCT, pathNot: TEST_FILE },
      to: { path: '^(bench|test)/' },
    },
    {
      name: 'viewer-is-the-top-of-the-renderer',
      comment: 'renderer/viewer (the page, index.html) sits on the library; nothing below imports it.',
      severity: 'error',
      from: { path: '^(renderer/(gpu|pipeline|camera|profile|lod|api)|sort|scenes|shaders|bench)/' },
      to: { path: '^renderer/viewer/' },
    },
    {
      name: 'api-is-above-the-renderer',
      comment: 'renderer/api (the library: createViewer, Viewer, <splat-view>) uses the rest of renderer/; nothing below imports it.',
      severity: 'error',
      from: { path: '^(renderer/(gpu|pipeline|camera|profile|lod)|sort|scenes|shaders)/' },
      to: { path: '^renderer/api/' },
    },
    {
      name: 'page-uses-only-the-public-api',
      comment: "The page (renderer/viewer) is built on the library's public entry, renderer/api/index.ts, and its own UI modules: nothing else of the project (tests excepted).",
      severity: 'error',
      from: { path: '^renderer/viewer/', pathNot: TEST_FILE },
      to: { path: '^(renderer/(?!viewer/)|sort/|scenes/|shaders/)', pathNot: '^renderer/api/index\\.ts$' },
    },
    {
      name: 'gpu-room-is-a-leaf',
      comment: 'renderer/gpu opens adapters and devices; it depends on no other part of the project.',
      severity: 'error',
      from: { path: '^renderer/gpu/', pathNot: TEST_FILE },
      to: { path: '^(renderer/(?!gpu/)|sort|scenes|shaders)' },
    },
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
      from: { pathNot: '^renderer/api/' },
      to: { circular: true },
    },
    {
      name: 'no-runtime-cycles-in-the-library',
      comment: "renderer/api's pieces (frame.ts, scene-open.ts, ...) take the Viewer they work for as a type: those type-only arrows back are the only cycles allowed.",
      severity: 'error',
      from: { path: '^renderer/api/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
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
