/**
 * splatview's library entry (`import { createViewer } from 'splatview'`):
 * docs/API.md describes it. Everything a page needs of the viewer comes from
 * here (index.html's own page imports nothing else of the renderer: checked by
 * .dependency-cruiser.cjs).
 */
export { createViewer, type ViewerOptions, type ControlsOptions, type TextureSize } from './create-viewer';
export { Viewer, type ViewerCamera } from './viewer';
export type { MessageAction, ViewerEventMap, ViewerEventName } from './events';
export type { KeyValueStore } from '../profile/auto-picks';
export { defaultSettings, type RenderSettings } from './settings';
export type { SceneInput } from './sources';
export type { LoadRecord } from './scene-open';
export { LodObjectRefused, SplatObject, type AddOptions, type ExportFormat, type ObjectCrop, type ObjectTransform, type ObjectTransformInit } from './objects';
export type { PickResult, ScreenPoint } from './picking';
export { SceneLoadCancelled } from './scene-loader';
export { DeviceLostDuringLoad } from './scene-open';
export { GpuBudgetError, GpuMemoryError } from '../frame/gpu-budget';
export { WebGpuUnavailableError } from '../gpu/browser-device';
export * from '../../scenes/errors';
export type { OffscreenImage } from '../frame/offscreen';
export type { DrawOverOptions, HostCamera, HostDepthTexture } from './host-draw';
export { CompositionRefused } from '../frame/splat-renderer';
export type { FrameSample } from '../profile/frame-stats';
export type { CameraPose, UpAxis, Vec3 } from '../camera/camera';
// Camera paths (docs/PATHS.md): the file and hash forms, poses and frames, the orbit preset; the viewer's player.
export {
  CameraPathError,
  decodePathHash,
  encodePathHash,
  frameCount,
  orbitPath,
  parseCameraPath,
  parseCameraPathJson,
  pathFrames,
  poseAt,
  serializeCameraPath,
  validateCameraPath,
  type CameraPath,
  type OrbitOptions,
  type PathKeyframe,
} from '../camera/camera-path';
export type { PlayOptions } from './path-player';
export type { BenchmarkPathOptions } from './benchmark';
export type { RowPath, PathFrameTimes, SlowestSecond, StageFigures } from '../profile/benchmark-report';

// For UIs over a viewer (the page's panel, HUD, graph): names, stage table, formatting.
export { AUTO_STRATEGY } from '../profile/auto-strategy';
export { AUTO_DRAW, isDrawSetting, type DrawSetting, type DrawChoice } from '../profile/auto-draw';
export { DRAW_NAMES, drawByName, drawServedBy, type DrawName } from '../draw/draw-strategies';
export { DRAW_ORDERS, type DrawOrder } from '../draw/quads/quads-draw';
export type { StrategyInfo } from '../order/strategies';
export { FRAME_STAGES, STAGE_NAMES, type StageName } from '../stage/frame-stages';
export { FrameStats, summarize, type Summary } from '../profile/frame-stats';
export { RefreshGate } from '../profile/live-figures';
export { formatFps } from '../profile/fps';
export { formatTable, toCsv, toJson, type BenchmarkRow } from '../profile/benchmark-report';
export { cross, dot, length, normalize, sub } from '../camera/camera';
export type { LoadProgress } from './scene-load-protocol';
export { groupSceneFiles } from './scene-files';
export { budgetLine, readShParam, withShParam, budgetLimitsFor, loadOptionsFor } from './load-sh';
export type { SanitizeReport, ShDegree } from '../../scenes/splat-cloud';
export { DEFAULT_PRECISION, PRECISIONS, type ScenePrecision } from '../gpu-scene/scene-precision';
export { budgetParam, DEFAULT_LOD_BUDGET } from './lod-source';
export type { LodStats } from '../lod/lod-scene';
