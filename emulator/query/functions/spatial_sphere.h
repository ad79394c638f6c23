// The geometry the spatial functions (spatial.cpp) compute on: the WGS-84 ellipsoid's lengths and
// areas, and exact topology on the unit sphere of geocentric directions (spatial.cpp's opening
// comment gives the model): vectors, great elliptic arcs, boxes, the grid index of arcs, rings and
// polygons, and where a point lies in them. Internal to the spatial functions; inline, as most of
// it is arithmetic the compiler folds into its callers.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cosmos::query::spatial {

inline constexpr double kPi = std::numbers::pi;
inline constexpr double kA = 6378137.0;                // WGS-84 semi-major axis (m)
inline constexpr double kF = 1 / 298.257223563;        // WGS-84 flattening
inline constexpr double kB = kA * (1 - kF);            // semi-minor axis (m)
inline constexpr double kE2 = kF * (2 - kF);           // first eccentricity squared
inline constexpr double kEps = 1e-12;                  // angular tolerance (radians, about 6 micrometres)
inline constexpr double kMaxLongitude = 15069;         // the service's (SQL Server's) geography longitude limit

struct V3 {
  double x = 0, y = 0, z = 0;
};
inline V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline V3 operator*(V3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
inline double Dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline V3 Cross(V3 a, V3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline double Norm(V3 a) { return std::sqrt(Dot(a, a)); }
inline V3 Unit(V3 a) { return a * (1 / Norm(a)); }
// The angle between two unit vectors, accurate for tiny and near-straight angles alike.
inline double Angle(V3 a, V3 b) { return std::atan2(Norm(Cross(a, b)), Dot(a, b)); }

// ---------------------------------------------------------------------------------------------------
// Ellipsoid metrics

// Earth-centred coordinates (m) of the surface point at a geodetic longitude and latitude (degrees).
inline V3 Ecef(double lon_deg, double lat_deg) {
  double lon = lon_deg * kPi / 180, lat = lat_deg * kPi / 180;
  double s = std::sin(lat), c = std::cos(lat);
  double n = kA / std::sqrt(1 - kE2 * s * s);
  return {n * c * std::cos(lon), n * c * std::sin(lon), n * (1 - kE2) * s};
}

// The surface point in a geocentric direction.
inline V3 SurfaceAlong(V3 d) {
  return d * (1 / std::sqrt((d.x * d.x + d.y * d.y) / (kA * kA) + d.z * d.z / (kB * kB)));
}

// Integral of sqrt(1 + k2 sin^2 s) ds from 0 to t, as c0 t + sum c_j sin(2jt) / 2j; the integrand is
// smooth and pi-periodic, so a 32-point trapezoid rule gives its Fourier coefficients to full precision
// for every k2 an earth ellipse has (k2 < 0.007).
class EllipticSeries {
 public:
  explicit EllipticSeries(double k2) {
    static const Tables tables;
    std::array<double, kN> g{};
    for (int m = 0; m < kN; ++m) g[m] = std::sqrt(1 + k2 * tables.sin2[m]);
    c0_ = 0;
    for (double v : g) c0_ += v;
    c0_ /= kN;
    for (int j = 1; j <= kTerms; ++j) {
      double sum = 0;
      for (int m = 0; m < kN; ++m) sum += g[m] * tables.cos2j[j - 1][m];
      c_[j - 1] = 2 * sum / kN / (2 * j);
    }
  }
  double operator()(double t) const {
    double r = c0_ * t;
    for (int j = 1; j <= kTerms; ++j) r += c_[j - 1] * std::sin(2 * j * t);
    return r;
  }

 private:
  static constexpr int kN = 32;
  static constexpr int kTerms = 8;
  struct Tables {
    std::array<double, kN> sin2{};                       // sin^2 at the sample points
    std::array<std::array<double, kN>, kTerms> cos2j{};  // cos(2 j s) at the sample points
    Tables() {
      for (int m = 0; m < kN; ++m) {
        double s = std::sin(kPi * m / kN);
        sin2[m] = s * s;
        for (int j = 1; j <= kTerms; ++j) cos2j[j - 1][m] = std::cos(2 * j * kPi * m / kN);
      }
    }
  };
  double c0_;
  std::array<double, kTerms> c_{};
};

// Length (m) of the great elliptic arc between two surface points given in earth-centred coordinates.
inline double GreatEllipseLength(V3 p1, V3 p2) {
  // A fixed order of the two points makes the result exactly symmetric.
  if (std::tie(p2.x, p2.y, p2.z) < std::tie(p1.x, p1.y, p1.z)) std::swap(p1, p2);
  V3 n = Cross(p1, p2);
  double nn = Norm(n);
  if (nn <= 1e-12 * Norm(p1) * Norm(p2)) {
    if (Dot(p1, p2) > 0) return Norm(p1 - p2);  // within micrometres: the chord is the arc
    // Antipodes (to rounding): every plane through them qualifies; the shortest cut is the meridian ellipse.
    return kB * EllipticSeries((kA * kA - kB * kB) / (kB * kB))(kPi);
  }
  n = n * (1 / nn);
  // The cut is an ellipse with semi-axes a (along the equatorial line of the plane) and bg.
  V3 m = Cross({0, 0, 1}, n);
  double mn = Norm(m);
  m = mn < 1e-15 ? Unit(p1) : m * (1 / mn);
  V3 w = Cross(n, m);
  double bg = 1 / std::sqrt((1 - w.z * w.z) / (kA * kA) + w.z * w.z / (kB * kB));
  double t1 = std::atan2(Dot(p1, w) / bg, Dot(p1, m) / kA);
  double t2 = std::atan2(Dot(p2, w) / bg, Dot(p2, m) / kA);
  double dt = t2 - t1;
  if (dt > kPi) dt -= 2 * kPi;
  if (dt <= -kPi) dt += 2 * kPi;
  EllipticSeries e((kA * kA - bg * bg) / (bg * bg));
  return bg * std::fabs(e(t1 + dt) - e(t1));
}

inline double DistanceBetween(V3 u1, V3 u2) { return GreatEllipseLength(SurfaceAlong(u1), SurfaceAlong(u2)); }

// The authalic function q(phi): the area between the equator and latitude phi over dlambda radians of
// longitude is a^2 / 2 * q(phi) * dlambda.
inline double AuthalicQ(double sin_phi) {
  double e = std::sqrt(kE2);
  return (1 - kE2) * (sin_phi / (1 - kE2 * sin_phi * sin_phi) + std::atanh(e * sin_phi) / e);
}

// ---------------------------------------------------------------------------------------------------
// Geometry on the sphere of geocentric directions

struct Arc {
  V3 a, b;     // unit endpoints
  V3 n;        // unit normal a x b: the left of the direction of travel
  double len;  // angle from a to b, in (0, pi)
  int ring;    // 1-based ring number for messages (0 for lines)
};

inline Arc MakeArc(V3 a, V3 b, int ring) { return {a, b, Unit(Cross(a, b)), Angle(a, b), ring}; }

// The point at angle t along the arc's great circle from a towards b.
inline V3 ArcPoint(const Arc& arc, double t) { return arc.a * std::cos(t) + Cross(arc.n, arc.a) * std::sin(t); }

// The angle along the arc's great circle from a to the projection of q.
inline double ArcParam(const Arc& arc, V3 q) { return std::atan2(Dot(Cross(arc.a, q), arc.n), Dot(arc.a, q)); }

inline bool SamePoint(V3 p, V3 q) { return Norm(p - q) <= kEps; }

inline bool OnArc(V3 q, const Arc& arc) {
  if (SamePoint(q, arc.a) || SamePoint(q, arc.b)) return true;
  return std::fabs(Dot(q, arc.n)) <= kEps && Dot(Cross(arc.a, q), arc.n) >= -kEps &&
         Dot(Cross(q, arc.b), arc.n) >= -kEps && Dot(q, arc.a + arc.b) > 0;
}

// The crossing point of two arcs that cross at a point interior to both (not at an endpoint or along a
// shared great circle), if they do.
inline std::optional<V3> ProperCrossing(const Arc& x, const Arc& y) {
  double c = Dot(x.n, y.a), d = Dot(x.n, y.b);
  double a = Dot(y.n, x.a), b = Dot(y.n, x.b);
  if (!((c > kEps && d < -kEps) || (c < -kEps && d > kEps))) return std::nullopt;
  if (!((a > kEps && b < -kEps) || (a < -kEps && b > kEps))) return std::nullopt;
  V3 p = Cross(x.n, y.n);
  double pn = Norm(p);
  if (pn <= kEps) return std::nullopt;
  p = p * (1 / pn);
  if (Dot(p, x.a + x.b) < 0) p = p * -1;
  if (Dot(p, y.a + y.b) <= 0) return std::nullopt;
  return p;
}

inline bool ArcsIntersect(const Arc& x, const Arc& y) {
  return OnArc(x.a, y) || OnArc(x.b, y) || OnArc(y.a, x) || OnArc(y.b, x) || ProperCrossing(x, y).has_value();
}

// True when the two arcs share a stretch of positive length.
inline bool ArcsOverlap(const Arc& x, const Arc& y) {
  if (Norm(Cross(x.n, y.n)) > 1e-9) return false;  // not on one great circle
  auto inner = [](V3 q, const Arc& arc) { return OnArc(q, arc) && !SamePoint(q, arc.a) && !SamePoint(q, arc.b); };
  if (inner(y.a, x) || inner(y.b, x) || inner(x.a, y) || inner(x.b, y)) return true;
  return (SamePoint(x.a, y.a) && SamePoint(x.b, y.b)) || (SamePoint(x.a, y.b) && SamePoint(x.b, y.a));
}

// The shortest angle from q to any point of the arc.
inline double AngleToArc(V3 q, const Arc& arc) {
  V3 f = q - arc.n * Dot(q, arc.n);
  if (Norm(f) > 1e-15) {
    double t = ArcParam(arc, f);
    if (t > 0 && t < arc.len) return std::atan2(std::fabs(Dot(q, arc.n)), Norm(f));
  }
  return std::min(Angle(q, arc.a), Angle(q, arc.b));
}

// An axis-aligned box in the unit cube holding an arc (its endpoints' box grown by the arc's sagitta).
struct Box {
  V3 lo, hi;
};

inline Box ArcBox(const Arc& arc) {
  double grow = 1 - std::cos(arc.len / 2) + 4 * kEps;
  return {{std::min(arc.a.x, arc.b.x) - grow, std::min(arc.a.y, arc.b.y) - grow, std::min(arc.a.z, arc.b.z) - grow},
          {std::max(arc.a.x, arc.b.x) + grow, std::max(arc.a.y, arc.b.y) + grow, std::max(arc.a.z, arc.b.z) + grow}};
}

inline constexpr Box kEmptyBox = {{2, 2, 2}, {-2, -2, -2}};

inline Box Union(const Box& p, const Box& q) {
  return {{std::min(p.lo.x, q.lo.x), std::min(p.lo.y, q.lo.y), std::min(p.lo.z, q.lo.z)},
          {std::max(p.hi.x, q.hi.x), std::max(p.hi.y, q.hi.y), std::max(p.hi.z, q.hi.z)}};
}

inline Box PathBox(const std::vector<Arc>& arcs) {
  Box box = kEmptyBox;
  for (const Arc& arc : arcs) box = Union(box, ArcBox(arc));
  return box;
}

inline bool Overlap(const Box& p, const Box& q) {
  return p.lo.x <= q.hi.x && q.lo.x <= p.hi.x && p.lo.y <= q.hi.y && q.lo.y <= p.hi.y && p.lo.z <= q.hi.z &&
         q.lo.z <= p.hi.z;
}

// A uniform grid over the arcs' boxes, so that finding the arcs near another arc does not scan them all.
class ArcIndex {
 public:
  explicit ArcIndex(std::vector<const Arc*> arcs) : arcs_(std::move(arcs)), seen_(arcs_.size(), 0) {
    boxes_.reserve(arcs_.size());
    for (const Arc* a : arcs_) {
      boxes_.push_back(ArcBox(*a));
      bounds_ = Union(bounds_, boxes_.back());
    }
    if (arcs_.size() < 32) return;  // small sets are scanned
    cells_ = std::clamp(static_cast<int>(std::sqrt(static_cast<double>(arcs_.size()))), 4, 512);
    for (size_t i = 0; i < arcs_.size(); ++i) {
      auto [lo, hi] = Range(boxes_[i]);
      if (Count(lo, hi) > 64) {
        big_.push_back(static_cast<uint32_t>(i));
        continue;
      }
      for (int x = lo[0]; x <= hi[0]; ++x)
        for (int y = lo[1]; y <= hi[1]; ++y)
          for (int z = lo[2]; z <= hi[2]; ++z) grid_[Key(x, y, z)].push_back(static_cast<uint32_t>(i));
    }
  }
  const std::vector<const Arc*>& arcs() const { return arcs_; }
  const Box& bounds() const { return bounds_; }

  // Calls f(arc) for every indexed arc whose box overlaps `box`, each once.
  template <class F>
  void ForEachNear(const Box& box, F&& f) const {
    if (++stamp_ == 0) {  // wrapped: forget every mark
      std::fill(seen_.begin(), seen_.end(), 0);
      stamp_ = 1;
    }
    auto visit = [&](uint32_t i) {
      if (seen_[i] == stamp_ || !Overlap(box, boxes_[i])) return;
      seen_[i] = stamp_;
      f(*arcs_[i]);
    };
    auto [lo, hi] = Range(box);
    if (cells_ == 0 || Count(lo, hi) > static_cast<int64_t>(arcs_.size())) {
      for (uint32_t i = 0; i < arcs_.size(); ++i) visit(i);
      return;
    }
    for (uint32_t i : big_) visit(i);
    for (int x = lo[0]; x <= hi[0]; ++x)
      for (int y = lo[1]; y <= hi[1]; ++y)
        for (int z = lo[2]; z <= hi[2]; ++z) {
          auto it = grid_.find(Key(x, y, z));
          if (it != grid_.end())
            for (uint32_t i : it->second) visit(i);
        }
  }

 private:
  int Cell(double v) const { return std::clamp(static_cast<int>((v + 1) / 2 * cells_), 0, cells_ - 1); }
  std::pair<std::array<int, 3>, std::array<int, 3>> Range(const Box& b) const {
    if (cells_ == 0) return {};
    return {{Cell(b.lo.x), Cell(b.lo.y), Cell(b.lo.z)}, {Cell(b.hi.x), Cell(b.hi.y), Cell(b.hi.z)}};
  }
  static int64_t Count(const std::array<int, 3>& lo, const std::array<int, 3>& hi) {
    return static_cast<int64_t>(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
  }
  static uint64_t Key(int x, int y, int z) {
    return (static_cast<uint64_t>(x) << 40) | (static_cast<uint64_t>(y) << 20) | static_cast<uint64_t>(z);
  }

  std::vector<const Arc*> arcs_;
  std::vector<Box> boxes_;
  Box bounds_ = kEmptyBox;
  int cells_ = 0;
  std::unordered_map<uint64_t, std::vector<uint32_t>> grid_;
  std::vector<uint32_t> big_;
  mutable std::vector<uint32_t> seen_;
  mutable uint32_t stamp_ = 0;
};

struct Ring {
  std::vector<V3> v;    // distinct consecutive vertices, not repeating the first at the end
  std::vector<Arc> arcs;
  double left_area = 0;  // steradians left of the ring on the unit sphere, in (0, 4 pi)
  Box box = kEmptyBox;   // bounds of its arcs
};

struct Poly {
  std::vector<Ring> rings;
};

// Steradians on the left of a closed ring, by Gauss-Bonnet: 2 pi minus the total left turning.
inline double LeftArea(const std::vector<Arc>& arcs) {
  double turning = 0;
  for (size_t i = 0; i < arcs.size(); ++i) {
    const Arc& in = arcs[i];
    const Arc& out = arcs[(i + 1) % arcs.size()];
    V3 v = in.b;
    V3 d_in = Cross(in.n, v), d_out = Cross(out.n, v);
    turning += std::atan2(Dot(v, Cross(d_in, d_out)), Dot(d_in, d_out));
  }
  return 2 * kPi - turning;
}

// Whether q (not on the ring) lies on the ring's left. The signed areas of the triangles fanned from
// the antipode of q add up to the left area, less 4 pi exactly when q is on the left.
inline bool LeftOf(const Ring& ring, V3 q) {
  V3 p = q * -1;
  double sum = 0;
  for (const Arc& arc : ring.arcs) {
    sum += 2 * std::atan2(Dot(p, Cross(arc.a, arc.b)), 1 + Dot(p, arc.a) + Dot(arc.a, arc.b) + Dot(arc.b, p));
  }
  return sum < ring.left_area - 2 * kPi;
}

enum class Loc { kOutside, kBoundary, kInside };

inline Loc LocateInRing(const Ring& ring, V3 q) {
  for (const Arc& arc : ring.arcs) {
    if (OnArc(q, arc)) return Loc::kBoundary;
  }
  return LeftOf(ring, q) ? Loc::kInside : Loc::kOutside;
}

inline Loc LocateInPoly(const Poly& poly, V3 q) {
  for (const Ring& ring : poly.rings) {
    for (const Arc& arc : ring.arcs) {
      if (OnArc(q, arc)) return Loc::kBoundary;
    }
  }
  for (const Ring& ring : poly.rings) {
    if (!LeftOf(ring, q)) return Loc::kOutside;
  }
  return Loc::kInside;
}

// Location in a union of polygons (a point where two parts touch is on the boundary).
inline Loc LocateInPolys(const std::vector<Poly>& polys, V3 q) {
  bool boundary = false;
  for (const Poly& p : polys) {
    Loc l = LocateInPoly(p, q);
    if (l == Loc::kInside) return l;
    if (l == Loc::kBoundary) boundary = true;
  }
  return boundary ? Loc::kBoundary : Loc::kOutside;
}

// A stretch of an arc between consecutive points where it meets a set of other arcs.
struct Piece {
  V3 mid;
  bool after_cut;  // starts where the arc meets one of the other arcs
};

// The pieces an arc is cut into by a set of other arcs (at crossings, and where either touches the
// other). Along a path, a piece that does not start at a cut lies on the same side as the one before.
inline std::vector<Piece> CutPieces(const Arc& arc, const ArcIndex& cutters) {
  std::vector<std::pair<double, bool>> ts = {{0, false}, {arc.len, false}};
  cutters.ForEachNear(ArcBox(arc), [&](const Arc& c) {
    for (V3 q : {c.a, c.b}) {
      if (OnArc(q, arc)) ts.push_back({std::clamp(ArcParam(arc, q), 0.0, arc.len), true});
    }
    for (V3 q : {arc.a, arc.b}) {
      if (OnArc(q, c)) ts.push_back({SamePoint(q, arc.a) ? 0.0 : arc.len, true});
    }
    if (auto x = ProperCrossing(arc, c)) ts.push_back({std::clamp(ArcParam(arc, *x), 0.0, arc.len), true});
  });
  std::sort(ts.begin(), ts.end());
  std::vector<Piece> pieces;
  bool cut = false;
  for (size_t i = 0; i + 1 < ts.size(); ++i) {
    cut = cut || ts[i].second;
    if (ts[i + 1].first - ts[i].first > 4 * kEps) {
      pieces.push_back({ArcPoint(arc, (ts[i].first + ts[i + 1].first) / 2), cut});
      cut = false;
    }
  }
  return pieces;
}

// Calls visit(arc, piece midpoint, location) for the pieces of a closed or open path of arcs cut by
// `cutters` (path_box bounds the path), locating a piece only where the path may have changed sides;
// stops when visit returns false.
template <class Locate, class Visit>
void WalkPath(const std::vector<Arc>& path, const Box& path_box, const ArcIndex& cutters, Locate&& locate,
              Visit&& visit) {
  if (path.empty()) return;
  if (!Overlap(path_box, cutters.bounds())) {
    // Nothing can cut the path: it lies wholly on one side, and one piece stands for all.
    V3 mid = ArcPoint(path[0], path[0].len / 2);
    visit(path[0], mid, locate(mid));
    return;
  }
  std::optional<Loc> loc;
  for (const Arc& arc : path) {
    for (const Piece& p : CutPieces(arc, cutters)) {
      if (!loc || p.after_cut) loc = locate(p.mid);
      if (!visit(arc, p.mid, *loc)) return;
    }
  }
}

inline std::vector<const Arc*> ArcsOf(const Poly& p) {
  std::vector<const Arc*> out;
  for (const Ring& r : p.rings) {
    for (const Arc& a : r.arcs) out.push_back(&a);
  }
  return out;
}

inline std::vector<const Arc*> ArcsOf(const std::vector<Poly>& polys) {
  std::vector<const Arc*> out;
  for (const Poly& p : polys) {
    for (const Ring& r : p.rings) {
      for (const Arc& a : r.arcs) out.push_back(&a);
    }
  }
  return out;
}

}  // namespace cosmos::query::spatial
