/**
 * The curves of camera paths (camera-path.ts): a Catmull-Rom spline over any knots
 * (cubic Hermite form, C1 in the knot parameter), its centripetal form walked by arc
 * length, and a monotone cubic for scalars. Pure maths, no DOM.
 */
import type { Vec3 } from './camera';

/** Hermite basis on u in [0, 1] with the tangents already scaled by the interval. */
function hermite(p0: number, m0: number, p1: number, m1: number, u: number): number {
  const u2 = u * u;
  const u3 = u2 * u;
  // h00 = 1 - h01: written so that a constant stretch (p0 = p1, no slopes) is exactly p0.
  return p0 + (-2 * u3 + 3 * u2) * (p1 - p0) + (u3 - 2 * u2 + u) * m0 + (u3 - u2) * m1;
}

/** d/du of {@link hermite}. */
function hermiteSlope(p0: number, m0: number, p1: number, m1: number, u: number): number {
  const u2 = u * u;
  return (6 * u2 - 6 * u) * p0 + (3 * u2 - 4 * u + 1) * m0 + (-6 * u2 + 6 * u) * p1 + (3 * u2 - 2 * u) * m1;
}

/** Index i of the interval [xs[i], xs[i + 1]] holding x (clamped to the first and last). */
function intervalOf(xs: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = xs.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (xs[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * A Catmull-Rom spline through `points` at `knots` (strictly increasing), in the
 * Barry-Goldman form written as cubic Hermite segments: the tangent at an inner point
 * is (P_i - P_i-1)/(t_i - t_i-1) - (P_i+1 - P_i-1)/(t_i+1 - t_i-1) + (P_i+1 - P_i)/(t_i+1 - t_i),
 * the same from both sides, so the curve is C1 in the knot parameter. At the ends the
 * tangent is the parabola's through the first (last) three points (a circle stays
 * round, a line straight); two points give the straight line at constant speed. Evaluated outside the knots it holds the end points.
 */
export class CatmullRom {
  /** Derivative d/dt at each point. */
  readonly tangents: Vec3[];

  constructor(
    readonly points: readonly Vec3[],
    readonly knots: readonly number[],
  ) {
    const n = points.length;
    if (n < 2 || knots.length !== n) throw new Error(`CatmullRom: need >= 2 points and one knot each (got ${n} points, ${knots.length} knots)`);
    for (let i = 1; i < n; i++) if (!(knots[i] > knots[i - 1])) throw new Error(`CatmullRom: knots must increase strictly (knot ${i})`);
    const P = points;
    const t = knots;
    const m: Vec3[] = P.map(() => [0, 0, 0] as Vec3);
    for (let i = 1; i < n - 1; i++) {
      for (let c = 0; c < 3; c++) {
        m[i][c] =
          (P[i][c] - P[i - 1][c]) / (t[i] - t[i - 1]) - (P[i + 1][c] - P[i - 1][c]) / (t[i + 1] - t[i - 1]) + (P[i + 1][c] - P[i][c]) / (t[i + 1] - t[i]);
      }
    }
    // Ends: the slope of the parabola through the first (last) three points, so a
    // circle stays round to its ends and a line straight; two points: the secant.
    const h0 = t[1] - t[0];
    const hn = t[n - 1] - t[n - 2];
    for (let c = 0; c < 3; c++) {
      const first = (P[1][c] - P[0][c]) / h0;
      const last = (P[n - 1][c] - P[n - 2][c]) / hn;
      if (n === 2) {
        m[0][c] = first;
        m[1][c] = first;
      } else {
        const h1 = t[2] - t[1];
        const second = (P[2][c] - P[1][c]) / h1;
        m[0][c] = ((2 * h0 + h1) * first - h0 * second) / (h0 + h1);
        const hm = t[n - 2] - t[n - 3];
        const before = (P[n - 2][c] - P[n - 3][c]) / hm;
        m[n - 1][c] = ((2 * hn + hm) * last - hn * before) / (hn + hm);
      }
    }
    this.tangents = m;
  }

  /** The segment of knot parameter t (clamped to the knots) and its local u in [0, 1]. */
  private locate(t: number): { i: number; u: number; h: number } {
    const k = this.knots;
    const x = Math.min(k[k.length - 1], Math.max(k[0], t));
    const i = intervalOf(k, x);
    const h = k[i + 1] - k[i];
    return { i, u: (x - k[i]) / h, h };
  }

  /** The point at knot parameter t. */
  at(t: number): Vec3 {
    const { i, u, h } = this.locate(t);
    const P = this.points;
    const m = this.tangents;
    return [0, 1, 2].map((c) => hermite(P[i][c], m[i][c] * h, P[i + 1][c], m[i + 1][c] * h, u)) as Vec3;
  }

  /** dP/dt at knot parameter t. */
  derivative(t: number): Vec3 {
    const { i, u, h } = this.locate(t);
    const P = this.points;
    const m = this.tangents;
    return [0, 1, 2].map((c) => hermiteSlope(P[i][c], m[i][c] * h, P[i + 1][c], m[i + 1][c] * h, u) / h) as Vec3;
  }
}

// 5-point Gauss-Legendre on [-1, 1]: exact for polynomials of degree 9.
const GL_X = [0, -0.5384693101056831, 0.5384693101056831, -0.906179845938664, 0.906179845938664];
const GL_W = [0.5688888888888889, 0.4786286704993665, 0.4786286704993665, 0.2369268850561891, 0.2369268850561891];

/** Table entries a segment's arc length is kept at (then refined by Newton's method). */
const TABLE_STEPS = 32;

/**
 * A centripetal Catmull-Rom spline (alpha 0.5: knots spaced by the square root of the
 * distance between points, so no cusps or self-intersections within a segment) walked
 * by arc length: {@link at}(s) is the point at distance s along the curve, so equal
 * steps of s are equal distances. Points equal to the one before (the eye standing
 * still between two keyframes) add no segment: {@link keyLengths} repeats there.
 * Arc length per segment: a table of {@link TABLE_STEPS} steps by 5-point
 * Gauss-Legendre, inverted by bisection of the table and Newton's method on the
 * speed, to about 1e-12 of the length.
 */
export class ArcLengthSpline {
  /** Length of the whole curve. */
  readonly length: number;
  /** Arc length from the start to each input point (non-decreasing). */
  readonly keyLengths: number[];
  private readonly curve: CatmullRom | null;
  private readonly first: Vec3;
  /** Cumulative arc length at every table entry, all segments in a row (TABLE_STEPS + 1 a segment). */
  private readonly table: Float64Array;
  /** Arc length at the start of each segment, and the total last. */
  private readonly segStart: number[];

  constructor(points: readonly Vec3[], alpha = 0.5) {
    if (points.length < 1) throw new Error('ArcLengthSpline: no points');
    this.first = [...points[0]];
    const scale = Math.max(1e-300, ...points.map((p) => Math.max(Math.abs(p[0]), Math.abs(p[1]), Math.abs(p[2]))));
    const distinct: Vec3[] = [points[0]];
    const keyIndex: number[] = [0];
    for (let i = 1; i < points.length; i++) {
      const prev = distinct[distinct.length - 1];
      const d = Math.hypot(points[i][0] - prev[0], points[i][1] - prev[1], points[i][2] - prev[2]);
      if (d > 1e-12 * scale) distinct.push(points[i]);
      keyIndex.push(distinct.length - 1);
    }
    const segments = distinct.length - 1;
    this.table = new Float64Array(segments * (TABLE_STEPS + 1));
    this.segStart = [0];
    if (segments === 0) {
      this.curve = null;
      this.length = 0;
      this.keyLengths = points.map(() => 0);
      return;
    }
    const knots = [0];
    for (let j = 1; j < distinct.length; j++) {
      const d = Math.hypot(distinct[j][0] - distinct[j - 1][0], distinct[j][1] - distinct[j - 1][1], distinct[j][2] - distinct[j - 1][2]);
      knots.push(knots[j - 1] + d ** alpha);
    }
    this.curve = new CatmullRom(distinct, knots);
    let total = 0;
    for (let j = 0; j < segments; j++) {
      const base = j * (TABLE_STEPS + 1);
      const h = (knots[j + 1] - knots[j]) / TABLE_STEPS;
      this.table[base] = total;
      for (let k = 0; k < TABLE_STEPS; k++) {
        const a = knots[j] + k * h;
        total += this.speedIntegral(a, a + h);
        this.table[base + k + 1] = total;
      }
      this.segStart.push(total);
    }
    this.length = total;
    this.keyLengths = keyIndex.map((j) => this.segStart[j]);
  }

  /** The integral of |dP/dt| over knot parameters [a, b]. */
  private speedIntegral(a: number, b: number): number {
    const half = (b - a) / 2;
    const mid = (a + b) / 2;
    let sum = 0;
    for (let g = 0; g < 5; g++) {
      const d = this.curve!.derivative(mid + half * GL_X[g]);
      sum += GL_W[g] * Math.hypot(d[0], d[1], d[2]);
    }
    return sum * half;
  }

  /** The knot parameter at arc length s (clamped to [0, length]). */
  private knotAt(s: number): number {
    const curve = this.curve!;
    const x = Math.min(this.length, Math.max(0, s));
    const j = Math.min(intervalOf(this.segStart, x), this.segStart.length - 2);
    const base = j * (TABLE_STEPS + 1);
    const row = this.table.subarray(base, base + TABLE_STEPS + 1);
    const k = intervalOf(row, x);
    const k0 = curve.knots[j];
    const h = (curve.knots[j + 1] - k0) / TABLE_STEPS;
    const lo = k0 + k * h;
    const hi = lo + h;
    const span = row[k + 1] - row[k];
    let t = span > 0 ? lo + (h * (x - row[k])) / span : lo;
    // Newton on f(t) = row[k] + integral(lo, t) - x, kept inside [lo, hi].
    for (let it = 0; it < 4; it++) {
      const f = row[k] + this.speedIntegral(lo, t) - x;
      const d = curve.derivative(t);
      const speed = Math.hypot(d[0], d[1], d[2]);
      if (!(speed > 0)) break;
      const next = Math.min(hi, Math.max(lo, t - f / speed));
      if (Math.abs(next - t) <= 1e-15 * Math.max(1, Math.abs(t))) {
        t = next;
        break;
      }
      t = next;
    }
    return t;
  }

  /** The point at arc length s from the start (clamped to the curve). */
  at(s: number): Vec3 {
    if (!this.curve) return [...this.first];
    return this.curve.at(this.knotAt(s));
  }

  /** The unit tangent at arc length s; (0, 0, 0) for a curve of one point. */
  tangentAt(s: number): Vec3 {
    if (!this.curve) return [0, 0, 0];
    const d = this.curve.derivative(this.knotAt(s));
    const l = Math.hypot(d[0], d[1], d[2]);
    return l > 0 ? [d[0] / l, d[1] / l, d[2] / l] : [0, 0, 0];
  }
}

/**
 * A monotone cubic Hermite interpolant y(x) through (xs, ys), xs strictly increasing
 * (PCHIP: Fritsch-Butland slopes, the weighted harmonic mean of the secants beside a
 * point, 0 where they differ in sign or one is 0). C1, never overshoots the data
 * (monotone where the data is), and exactly linear where the data lies on one line.
 * Ends: `shape` (scipy's three-point end slope: linear data stays linear) or `zero`
 * (starts and ends at rest: eased). Outside xs it holds the end values.
 */
export class MonotoneCubic {
  /** dy/dx at each point. */
  readonly slopes: number[];

  constructor(
    readonly xs: readonly number[],
    readonly ys: readonly number[],
    ends: 'shape' | 'zero' = 'shape',
  ) {
    const n = xs.length;
    if (n < 2 || ys.length !== n) throw new Error(`MonotoneCubic: need >= 2 points and one value each (got ${n}, ${ys.length})`);
    const h: number[] = [];
    const delta: number[] = [];
    for (let i = 0; i + 1 < n; i++) {
      h.push(xs[i + 1] - xs[i]);
      if (!(h[i] > 0)) throw new Error(`MonotoneCubic: xs must increase strictly (x ${i + 1})`);
      delta.push((ys[i + 1] - ys[i]) / h[i]);
    }
    const m = new Array<number>(n).fill(0);
    for (let i = 1; i + 1 < n; i++) {
      const d0 = delta[i - 1];
      const d1 = delta[i];
      if (d0 === 0 || d1 === 0 || Math.sign(d0) !== Math.sign(d1)) continue;
      const w1 = 2 * h[i] + h[i - 1];
      const w2 = h[i] + 2 * h[i - 1];
      m[i] = (w1 + w2) / (w1 / d0 + w2 / d1);
    }
    if (ends === 'shape') {
      m[0] = n === 2 ? delta[0] : endSlope(h[0], h[1], delta[0], delta[1]);
      m[n - 1] = n === 2 ? delta[0] : endSlope(h[n - 2], h[n - 3], delta[n - 2], delta[n - 3]);
    }
    this.slopes = m;
  }

  /** y at x. */
  at(x: number): number {
    const { xs, ys, slopes: m } = this;
    if (x <= xs[0]) return ys[0];
    if (x >= xs[xs.length - 1]) return ys[ys.length - 1];
    const i = intervalOf(xs, x);
    const h = xs[i + 1] - xs[i];
    return hermite(ys[i], m[i] * h, ys[i + 1], m[i + 1] * h, (x - xs[i]) / h);
  }

  /** dy/dx at x (0 outside xs). */
  slope(x: number): number {
    const { xs, ys, slopes: m } = this;
    if (x < xs[0] || x > xs[xs.length - 1]) return 0;
    const i = intervalOf(xs, x);
    const h = xs[i + 1] - xs[i];
    return hermiteSlope(ys[i], m[i] * h, ys[i + 1], m[i + 1] * h, (x - xs[i]) / h) / h;
  }
}

/** scipy's PCHIP end slope: the three-point estimate, kept to the data's shape. */
function endSlope(h0: number, h1: number, d0: number, d1: number): number {
  const d = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1);
  if (Math.sign(d) !== Math.sign(d0)) return 0;
  if (Math.sign(d0) !== Math.sign(d1) && Math.abs(d) > 3 * Math.abs(d0)) return 3 * d0;
  return d;
}
