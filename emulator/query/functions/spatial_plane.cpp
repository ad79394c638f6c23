// The planar model of the spatial functions (spatial_plane.h): straight segments on the x/y plane.
#include "query/functions/spatial_plane.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "query/functions/spatial_geojson.h"

namespace cosmos::query::spatial::plane {

namespace {

enum class Loc { kInside, kBoundary, kOutside };

P2 operator-(P2 a, P2 b) { return {a.x - b.x, a.y - b.y}; }
bool operator==(P2 a, P2 b) { return a.x == b.x && a.y == b.y; }
double Cross(P2 a, P2 b) { return a.x * b.y - a.y * b.x; }
double Dot(P2 a, P2 b) { return a.x * b.x + a.y * b.y; }
double Length(P2 a) { return std::hypot(a.x, a.y); }
P2 Lerp(P2 a, P2 b, double t) { return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t}; }

// Which side of the line a->b point c lies on: > 0 left, < 0 right, 0 on it (within a relative
// tolerance of about 1e-12, so that points computed on a segment count as on it).
int Side(P2 a, P2 b, P2 c) {
  const double o = Cross(b - a, c - a);
  const double tol = 1e-12 * Length(b - a) * std::max(Length(c - a), Length(c - b));
  if (std::fabs(o) <= tol) return 0;
  return o > 0 ? 1 : -1;
}

// Whether c lies on the segment a-b (end points included).
bool OnSegment(P2 c, P2 a, P2 b) {
  if (c == a || c == b) return true;
  if (Side(a, b, c) != 0) return false;
  const P2 d = b - a;
  const double t = Dot(c - a, d), len2 = Dot(d, d);
  return t >= 0 && t <= len2;
}

// Whether the closed segments a-b and c-d share a point.
bool SegmentsIntersect(P2 a, P2 b, P2 c, P2 d) {
  const int s1 = Side(a, b, c), s2 = Side(a, b, d), s3 = Side(c, d, a), s4 = Side(c, d, b);
  if (s1 * s2 < 0 && s3 * s4 < 0) return true;
  return OnSegment(c, a, b) || OnSegment(d, a, b) || OnSegment(a, c, d) || OnSegment(b, c, d);
}

// Whether collinear segments a-b and c-d share more than a point.
bool SegmentsOverlap(P2 a, P2 b, P2 c, P2 d) {
  if (Side(a, b, c) != 0 || Side(a, b, d) != 0) return false;
  const P2 dir = b - a;
  const double len2 = Dot(dir, dir);
  double t0 = Dot(c - a, dir) / len2, t1 = Dot(d - a, dir) / len2;
  if (t0 > t1) std::swap(t0, t1);
  return std::min(1.0, t1) - std::max(0.0, t0) > 1e-12;
}

// The positions (0..1 along a-b) where the segment a-b meets c-d.
void Cuts(P2 a, P2 b, P2 c, P2 d, std::vector<double>& out) {
  const P2 r = b - a, s = d - c;
  const double len2 = Dot(r, r);
  auto along = [&](P2 p) { return std::clamp(Dot(p - a, r) / len2, 0.0, 1.0); };
  if (!SegmentsIntersect(a, b, c, d)) return;
  const double denom = Cross(r, s);
  if (Side(a, b, c) == 0 && Side(a, b, d) == 0) {  // collinear: where the overlap starts and ends
    out.push_back(along(c));
    out.push_back(along(d));
    return;
  }
  if (OnSegment(c, a, b)) out.push_back(along(c));
  if (OnSegment(d, a, b)) out.push_back(along(d));
  if (denom != 0) out.push_back(std::clamp(Cross(c - a, s) / denom, 0.0, 1.0));
}

struct Edge {
  P2 a, b;
};

std::vector<Edge> EdgesOf(const Ring& r) {
  std::vector<Edge> out;
  for (size_t i = 0; i < r.v.size(); ++i) out.push_back({r.v[i], r.v[(i + 1) % r.v.size()]});
  return out;
}

std::vector<Edge> EdgesOf(const Polygon& p) {
  std::vector<Edge> out;
  for (const Ring& r : p.rings) {
    auto e = EdgesOf(r);
    out.insert(out.end(), e.begin(), e.end());
  }
  return out;
}

std::vector<Edge> EdgesOf(const Shape& s) {
  std::vector<Edge> out;
  for (size_t i = 0; i + 1 < s.line.size(); ++i) out.push_back({s.line[i], s.line[i + 1]});
  for (const Polygon& p : s.polygons) {
    auto e = EdgesOf(p);
    out.insert(out.end(), e.begin(), e.end());
  }
  return out;
}

double SignedArea(const Ring& r) {
  double sum = 0;
  for (size_t i = 0; i < r.v.size(); ++i) sum += Cross(r.v[i], r.v[(i + 1) % r.v.size()]);
  return sum / 2;
}

Loc LocateInRing(const Ring& r, P2 q) {
  bool in = false;
  for (size_t i = 0, n = r.v.size(); i < n; ++i) {
    P2 a = r.v[i], b = r.v[(i + 1) % n];
    if (OnSegment(q, a, b)) return Loc::kBoundary;
    if ((a.y > q.y) != (b.y > q.y)) {
      const double x = a.x + (q.y - a.y) / (b.y - a.y) * (b.x - a.x);
      if (x > q.x) in = !in;
    }
  }
  return in ? Loc::kInside : Loc::kOutside;
}

Loc LocateInPolygon(const Polygon& p, P2 q) {
  const Loc outer = LocateInRing(p.rings[0], q);
  if (outer != Loc::kInside) return outer;
  for (size_t i = 1; i < p.rings.size(); ++i) {
    const Loc hole = LocateInRing(p.rings[i], q);
    if (hole == Loc::kBoundary) return Loc::kBoundary;
    if (hole == Loc::kInside) return Loc::kOutside;
  }
  return Loc::kInside;
}

Loc LocateInPolygons(const std::vector<Polygon>& ps, P2 q) {
  Loc best = Loc::kOutside;
  for (const Polygon& p : ps) {
    const Loc l = LocateInPolygon(p, q);
    if (l == Loc::kInside) return l;
    if (l == Loc::kBoundary) best = l;
  }
  return best;
}

// Cuts each edge of `path` where it meets `cutters` and calls `visit` with the location of each
// piece's midpoint (as `locate` gives it); stops when `visit` returns false.
void WalkPieces(const std::vector<Edge>& path, const std::vector<Edge>& cutters, const std::function<Loc(P2)>& locate,
                const std::function<bool(Loc)>& visit) {
  for (const Edge& e : path) {
    std::vector<double> ts = {0, 1};
    for (const Edge& c : cutters) Cuts(e.a, e.b, c.a, c.b, ts);
    std::sort(ts.begin(), ts.end());
    for (size_t i = 0; i + 1 < ts.size(); ++i) {
      if (ts[i + 1] - ts[i] <= 1e-12) continue;
      if (!visit(locate(Lerp(e.a, e.b, (ts[i] + ts[i + 1]) / 2)))) return;
    }
  }
}

using Positions = std::vector<P2>;
using geojson::IntersectsItself;
using geojson::LiesInInterior;

std::vector<P2> Distinct(const Positions& raw, bool ring) {
  std::vector<P2> v;
  for (P2 p : raw) {
    if (v.empty() || !(v.back() == p)) v.push_back(p);
  }
  while (ring && v.size() > 1 && v.back() == v.front()) v.pop_back();
  return v;
}

// Builds one ring and checks that it is closed, has three distinct points and is simple.
std::string BuildRing(const Positions& raw, int number, Ring& out) {
  if (raw.size() < 4) return geojson::RingTooShort(number);
  if (!(raw.front() == raw.back())) return geojson::RingNotClosed(number);
  out.v = Distinct(raw, true);
  if (out.v.size() < 3) return geojson::RingTooFewDistinct(number);
  const auto edges = EdgesOf(out);
  const size_t n = edges.size();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      const bool adjacent = j == i + 1 || (i == 0 && j == n - 1);
      const Edge &x = edges[i], &y = edges[j];
      if (adjacent ? SegmentsOverlap(x.a, x.b, y.a, y.b) : SegmentsIntersect(x.a, x.b, y.a, y.b))
        return IntersectsItself(number);
    }
  }
  if (SignedArea(out) == 0) return IntersectsItself(number);
  return "";
}

// Builds one polygon (rings numbered from `first`): every hole inside the exterior and outside the
// other holes, rings meeting at points only.
std::string BuildPolygon(const std::vector<Positions>& raw, int first, Polygon& out) {
  for (size_t i = 0; i < raw.size(); ++i) {
    out.rings.emplace_back();
    std::string reason = BuildRing(raw[i], first + static_cast<int>(i), out.rings.back());
    if (!reason.empty()) return reason;
  }
  std::string reason;
  for (size_t i = 1; i < out.rings.size() && reason.empty(); ++i) {
    const int number = first + static_cast<int>(i);
    for (size_t j = 0; j < out.rings.size() && reason.empty(); ++j) {
      if (i == j) continue;
      const Ring& other = out.rings[j];
      // Inside the exterior (j == 0), outside every other hole.
      const Loc beyond = j == 0 ? Loc::kOutside : Loc::kInside;
      WalkPieces(EdgesOf(out.rings[i]), EdgesOf(other), [&](P2 q) { return LocateInRing(other, q); },
                 [&](Loc l) {
                   if (l == Loc::kBoundary) reason = IntersectsItself(number);
                   if (l == beyond) reason = LiesInInterior(number);
                   return reason.empty();
                 });
    }
  }
  return reason;
}

// A point just inside a polygon, beside the middle of its exterior ring's first edge.
P2 InteriorProbe(const Polygon& p) {
  const Ring& r = p.rings[0];
  const P2 a = r.v[0], b = r.v[1];
  const P2 d = b - a;
  const double len = Length(d);
  const double side = SignedArea(r) > 0 ? 1 : -1;  // counter-clockwise: the interior is on the left
  const double eps = 1e-7;
  const P2 m = Lerp(a, b, 0.5);
  return {m.x - side * d.y / len * eps * len, m.y + side * d.x / len * eps * len};
}

bool Touches(const Shape& s, P2 q) {
  switch (s.type) {
    case Type::kPoint:
      return s.point == q;
    case Type::kLineString:
      for (size_t i = 0; i + 1 < s.line.size(); ++i) {
        if (OnSegment(q, s.line[i], s.line[i + 1])) return true;
      }
      return false;
    case Type::kPolygon:
    case Type::kMultiPolygon:
      return LocateInPolygons(s.polygons, q) != Loc::kOutside;
  }
  return false;
}

std::vector<P2> Vertices(const Shape& s) {
  if (s.type == Type::kPoint) return {s.point};
  std::vector<P2> out = s.line;
  for (const Polygon& p : s.polygons) {
    for (const Ring& r : p.rings) out.insert(out.end(), r.v.begin(), r.v.end());
  }
  return out;
}

double PointSegmentDistance(P2 q, P2 a, P2 b) {
  const P2 d = b - a;
  const double len2 = Dot(d, d);
  const double t = len2 == 0 ? 0 : std::clamp(Dot(q - a, d) / len2, 0.0, 1.0);
  return Length(q - Lerp(a, b, t));
}

}  // namespace

Parsed Parse(const json::Value& v) {
  Parsed out;
  if (!v.IsObject()) return out;
  auto type = v.FindMember("type");
  auto coords = v.FindMember("coordinates");
  if (type == v.MemberEnd() || !type->value.IsString() || coords == v.MemberEnd()) return out;
  const std::string_view t(type->value.GetString(), type->value.GetStringLength());
  Shape& s = out.shape;
  if (t == "Point") {
    if (!geojson::ReadPosition(coords->value, s.point)) return out;
    s.type = Type::kPoint;
    out.ok = true;
    return out;
  }
  if (t == "LineString") {
    Positions line;
    if (!geojson::ReadPositions(coords->value, line)) return out;
    out.ok = true;
    s.type = Type::kLineString;
    s.line = Distinct(line, false);
    if (s.line.size() < 2) out.reason = geojson::LineTooShort();
    return out;
  }
  if (t != "Polygon" && t != "MultiPolygon") return out;
  std::vector<std::vector<Positions>> raw;
  if (!geojson::ReadPolygons(coords->value, t == "MultiPolygon", raw)) return out;
  s.type = t == "Polygon" ? Type::kPolygon : Type::kMultiPolygon;
  out.ok = true;
  int ring = 1;
  for (const auto& p : raw) {
    s.polygons.emplace_back();
    out.reason = BuildPolygon(p, ring, s.polygons.back());
    if (!out.reason.empty()) return out;
    ring += static_cast<int>(p.size());
  }
  // The parts of a MultiPolygon may touch at points but share no area and no edge.
  for (size_t i = 0; i < s.polygons.size() && out.reason.empty(); ++i) {
    for (size_t j = 0; j < s.polygons.size() && out.reason.empty(); ++j) {
      if (i == j) continue;
      const Polygon& other = s.polygons[j];
      int number = 1;
      for (size_t k = 0; k < i; ++k) number += static_cast<int>(s.polygons[k].rings.size());
      for (const Ring& r : s.polygons[i].rings) {
        WalkPieces(EdgesOf(r), EdgesOf(other), [&](P2 q) { return LocateInPolygon(other, q); }, [&](Loc l) {
          if (l == Loc::kBoundary) out.reason = IntersectsItself(number);
          if (l == Loc::kInside) out.reason = LiesInInterior(number);
          return out.reason.empty();
        });
        if (!out.reason.empty()) break;
        ++number;
      }
    }
  }
  return out;
}

bool Intersects(const Shape& a, const Shape& b) {
  for (P2 q : Vertices(a)) {
    if (Touches(b, q)) return true;
  }
  for (P2 q : Vertices(b)) {
    if (Touches(a, q)) return true;
  }
  const auto eb = EdgesOf(b);
  for (const Edge& x : EdgesOf(a)) {
    for (const Edge& y : eb) {
      if (SegmentsIntersect(x.a, x.b, y.a, y.b)) return true;
    }
  }
  return false;
}

bool Within(const Shape& a, const Shape& b) {
  const bool b_area = b.type == Type::kPolygon || b.type == Type::kMultiPolygon;
  switch (a.type) {
    case Type::kPoint: {
      if (b.type == Type::kPoint) return a.point == b.point;
      if (b.type == Type::kLineString) {
        const bool closed = b.line.front() == b.line.back();
        if (!closed && (a.point == b.line.front() || a.point == b.line.back())) return false;
        return Touches(b, a.point);
      }
      return LocateInPolygons(b.polygons, a.point) == Loc::kInside;
    }
    case Type::kLineString: {
      if (b.type == Type::kPoint) return false;
      // On a line, "inside" means on it; in polygons, strictly inside.
      auto locate = [&](P2 q) {
        if (b_area) return LocateInPolygons(b.polygons, q);
        return Touches(b, q) ? Loc::kInside : Loc::kOutside;
      };
      bool interior = false, outside = false;
      WalkPieces(EdgesOf(a), EdgesOf(b), locate, [&](Loc l) {
        outside = outside || l == Loc::kOutside;
        interior = interior || l == Loc::kInside;
        return !outside;
      });
      return interior && !outside;
    }
    case Type::kPolygon:
    case Type::kMultiPolygon: {
      if (!b_area) return false;
      const auto eb = EdgesOf(b);
      for (const Polygon& part : a.polygons) {
        const auto ep = EdgesOf(part);
        bool interior = false, outside = false;
        WalkPieces(ep, eb, [&](P2 q) { return LocateInPolygons(b.polygons, q); }, [&](Loc l) {
          outside = outside || l == Loc::kOutside;
          interior = interior || l == Loc::kInside;
          return !outside;
        });
        if (outside) return false;
        // No piece of b's boundary may pass through the part's interior (a hole of b there).
        bool hole = false;
        WalkPieces(eb, ep, [&](P2 q) { return LocateInPolygon(part, q); }, [&](Loc l) {
          hole = hole || l == Loc::kInside;
          return !hole;
        });
        if (hole) return false;
        // The whole boundary on b's boundary: inside when the part's interior is.
        if (!interior && LocateInPolygons(b.polygons, InteriorProbe(part)) != Loc::kInside) return false;
      }
      return true;
    }
  }
  return false;
}

double Distance(const Shape& a, const Shape& b) {
  if (a.type == Type::kPoint && b.type == Type::kPoint) return Length(a.point - b.point);
  if (Intersects(a, b)) return 0;
  double best = std::numeric_limits<double>::infinity();
  auto from = [&best](const Shape& x, const Shape& y) {
    const auto edges = EdgesOf(y);
    for (P2 q : Vertices(x)) {
      if (y.type == Type::kPoint) best = std::min(best, Length(q - y.point));
      for (const Edge& e : edges) best = std::min(best, PointSegmentDistance(q, e.a, e.b));
    }
  };
  from(a, b);
  from(b, a);
  return best;
}

double Area(const Shape& s) {
  double sum = 0;
  for (const Polygon& p : s.polygons) {
    sum += std::fabs(SignedArea(p.rings[0]));
    for (size_t i = 1; i < p.rings.size(); ++i) sum -= std::fabs(SignedArea(p.rings[i]));
  }
  return sum;
}

}  // namespace cosmos::query::spatial::plane
