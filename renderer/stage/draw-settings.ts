/**
 * The draw settings a frame is asked for (FrameSettings): the words of the setting,
 * below the draws that honour them (renderer/draw/quads draws the geometry and the
 * order; the tiles draw blends front to back whatever they say).
 */

/**
 * The polygon each splat is drawn with (shaders/draw/quads/splat.wgsl explains each):
 * 'quad' the rectangle at the cut's sigma (before issue 9); 'rect', 'hex', 'oct'
 * a rectangle, hexagon or octagon around the splat's 1/255 alpha contour (capped at
 * the cut); 'tri' one triangle around it; 'auto' per splat, the triangle for small
 * contours and the rectangle for large ones. All give the same image: only the
 * pixels the fragment test rejects differ.
 */
export const DRAW_GEOMETRIES = ['quad', 'rect', 'hex', 'oct', 'tri', 'auto'] as const;
export type DrawGeometry = (typeof DRAW_GEOMETRIES)[number];

/** A frame's draw order setting; 'auto' is resolved per view by the quads draw (quads/draw-order.ts). */
export const DRAW_ORDERS = ['auto', 'back-to-front', 'front-to-back'] as const;
export type DrawOrder = (typeof DRAW_ORDERS)[number];
