/**
 * The page's settings at start: the defaults, what the panel saved, then the
 * link's parameters (?sort= ?draw= ?cut= ?mincontrib= ?aa= ?order= ?sh=), which
 * win for the visit.
 */
import { AUTO_DRAW, defaultSettings, DRAW_ORDERS, isDrawSetting, readShParam, type DrawOrder } from '../renderer/api/index';
import { ViewerPanel, type ViewerSettings } from './gui';

export interface PageSettings {
  settings: ViewerSettings;
  /** Where the draw setting came from (the draw note words it). */
  drawSource: 'default' | 'saved' | 'link';
  /** Where the sort setting came from. */
  sortSource: 'link' | 'choice';
  /** Whether the saved settings hold an explicit up axis (kept over a scene's detected one). */
  upSaved: boolean;
  /** A malformed ?sh=, as one line, or undefined. */
  shError?: string;
  /** ?bindlimit=MB: a lower per-binding limit (to see the page on a smaller adapter), or undefined. */
  bindLimitBytes?: number;
}

/** A sort this device does not offer (saved, or in the link) becomes auto in the viewer. */
export function pageSettings(search: string): PageSettings {
  const saved = ViewerPanel.loadSaved((k, v) => (k !== 'sorter' || typeof v === 'string') && (k !== 'draw' || isDrawSetting(v)));
  let drawSource: PageSettings['drawSource'] = saved.draw && saved.draw !== AUTO_DRAW ? 'saved' : 'default';
  let sortSource: PageSettings['sortSource'] = 'choice';
  const settings: ViewerSettings = {
    // The viewer's defaults (sort and draw auto: measured on this adapter; a saved or
    // ?sort= / ?draw= choice wins), and the page's own.
    ...defaultSettings(),
    scene: 'default',
    graph: true,
    ...saved,
  };
  const shParam = readShParam(search);
  if (shParam.degree !== undefined) settings.loadSh = shParam.degree;
  const params = new URLSearchParams(search);
  const urlSort = params.get('sort');
  if (urlSort) {
    settings.sorter = urlSort;
    sortSource = 'link';
  }
  const urlDraw = params.get('draw');
  if (isDrawSetting(urlDraw)) {
    settings.draw = urlDraw;
    drawSource = urlDraw === AUTO_DRAW ? 'default' : 'link';
  }
  const urlCut = params.get('cut');
  if (urlCut === '1' || urlCut === '0') settings.sigmaCut = urlCut === '1';
  const urlContribution = Number(params.get('mincontrib') ?? NaN);
  if (urlContribution >= 0 && urlContribution <= 100) settings.minContribution = urlContribution;
  const urlAa = params.get('aa');
  if (urlAa === '1' || urlAa === '0') settings.antialias = urlAa === '1';
  const urlOrder = params.get('order');
  if (urlOrder && DRAW_ORDERS.includes(urlOrder as DrawOrder)) settings.drawOrder = urlOrder as DrawOrder;
  const mb = Number(params.get('bindlimit') ?? NaN);
  return {
    settings,
    drawSource,
    sortSource,
    upSaved: saved.upAxis !== undefined,
    ...(shParam.error ? { shError: shParam.error } : {}),
    ...(mb > 0 ? { bindLimitBytes: Math.floor(mb * 1e6) } : {}),
  };
}
