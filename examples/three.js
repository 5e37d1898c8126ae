// A three.js mesh inside a splat scene (examples/three.html): three.js's WebGPURenderer
// and a splatview viewer share one GPUDevice. Each frame three.js draws its lit mesh into
// a render target (colour + depth), the viewer draws its splats over that colour for the
// three.js camera, hidden behind the mesh's depth (viewer.drawOver), and three.js shows
// the target on the canvas. Splats in front of the mesh cover it; the mesh hides those
// behind it.
//
// Query: ?scene=URL or generate:... (default generate:default:60000), ?draw=quads|tiles
// (default quads), ?still (no orbit). window.demo: { viewer, renderer, render(parts) }.
import * as THREE from 'three/webgpu';
import { texture } from 'three/tsl';
import { createViewer } from 'splatview';

const params = new URLSearchParams(location.search);
const canvas = document.getElementById('c');
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();

// The viewer draws only through drawOver: headless and 1x1 (its own view is not shown).
const viewer = await createViewer({ width: 1, height: 1 }, {
  device,
  scene: params.get('scene') ?? 'generate:default:60000',
  draw: params.get('draw') ?? 'quads',
  sort: 'radix16',
  controls: false,
});
await viewer.ready;

const renderer = new THREE.WebGPURenderer({ canvas, device, antialias: false });
await renderer.init();
// The target is shown as it is (the splats' colours are display colours already).
renderer.outputColorSpace = THREE.LinearSRGBColorSpace;
renderer.setClearColor(0x000000, 1);

// The scene's first view: where the camera starts, what it orbits, the mesh's place and size.
const home = viewer.homeView;
const centre = new THREE.Vector3(...home.target);
const distance = centre.distanceTo(new THREE.Vector3(...home.eye));
const camera = new THREE.PerspectiveCamera(home.fovyDeg, 1, distance * 0.01, distance * 100);
camera.up.set(...home.up);

const scene = new THREE.Scene();
// A lit box at the scene's centre, through the splats there: partly in front of them, partly behind.
const mesh = new THREE.Mesh(
  new THREE.BoxGeometry(distance * 0.13, distance * 0.13, distance * 0.13),
  new THREE.MeshStandardMaterial({ color: 0xff7a1a, roughness: 0.4, metalness: 0.1 }),
);
mesh.position.copy(centre);
mesh.rotation.set(0.5, 0.7, 0);
scene.add(mesh);
scene.add(new THREE.HemisphereLight(0xffffff, 0x303040, 1.5));
const sun = new THREE.DirectionalLight(0xffffff, 2.5);
sun.position.set(...home.eye).add(camera.up.clone().multiplyScalar(distance));
scene.add(sun);

// three.js's picture and depth, as textures the viewer can draw into and test against.
let target = null;
function targetFor(width, height) {
  if (target && target.width === width && target.height === height) return target;
  target?.dispose();
  target = new THREE.RenderTarget(width, height, { depthTexture: new THREE.DepthTexture(width, height, THREE.FloatType) });
  present.material.colorNode = texture(target.texture);
  present.material.needsUpdate = true;
  return target;
}
const present = new THREE.QuadMesh(new THREE.MeshBasicNodeMaterial());

const start = performance.now();
/** One frame: the mesh (or only the clear), the splats over it (or not), shown on the canvas. */
function render({ mesh: showMesh = true, splats = true } = {}) {
  const width = Math.max(1, Math.round(canvas.clientWidth * devicePixelRatio));
  const height = Math.max(1, Math.round(canvas.clientHeight * devicePixelRatio));
  renderer.setSize(width, height, false);
  const rt = targetFor(width, height);
  camera.aspect = width / height;
  camera.updateProjectionMatrix();
  // Round the scene's centre, from its first view (still: the first view itself).
  const angle = params.has('still') ? 0 : ((performance.now() - start) / 1000) * 0.3;
  const offset = new THREE.Vector3(...home.eye).sub(centre).applyAxisAngle(camera.up.clone().normalize(), angle);
  camera.position.copy(centre).add(offset);
  camera.lookAt(centre);
  mesh.visible = showMesh;
  mesh.rotation.y = 0.7 + angle * 0.5;
  renderer.setRenderTarget(rt);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  if (splats) {
    viewer.drawOver({
      color: renderer.backend.get(rt.texture).texture,
      depth: { texture: renderer.backend.get(rt.depthTexture).texture },
      // After render(): the matrices of this frame, in WebGPU's [0, 1] depth.
      camera: { view: camera.matrixWorldInverse.elements, projection: camera.projectionMatrix.elements },
    });
  }
  present.render(renderer);
}

let running = !params.has('still');
function loop() {
  if (!running) return;
  render();
  requestAnimationFrame(loop);
}
if (running) loop();
else render();

window.demo = {
  viewer,
  renderer,
  render,
  stop: () => void (running = false),
};
