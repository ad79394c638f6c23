// Spatial functions on GeoJSON with the service's geography semantics: ST_DISTANCE, ST_WITHIN,
// ST_INTERSECTS, ST_ISVALID, ST_ISVALIDDETAILED and ST_AREA, for Point, LineString, Polygon (with holes)
// and MultiPolygon. Any other input (another GeoJSON type, a malformed object, a non-object) gives
// undefined, and so does an invalid geometry everywhere but in ST_ISVALID / ST_ISVALIDDETAILED.
//
// Earth model. Coordinates are WGS-84 [longitude, latitude] in degrees. Two points are joined by the
// great elliptic arc: the shorter arc of the ellipse cut from the WGS-84 ellipsoid by the plane through
// the earth's centre and both points; distances are lengths of such arcs in meters and areas are
// ellipsoidal areas in square meters. This reproduces the service's documented figures (the ST_DISTANCE
// example to 0.1 mm, the ST_AREA example to 0.1 m^2), while a true geodesic differs by up to 8 cm there.
// A great elliptic arc is a great circle on the sphere of geocentric directions, so all topology
// (crossings, containment) is computed exactly on that unit sphere; only lengths and areas use the
// ellipsoid.
//
// Regions. Every ring bounds the region on its left (counter-clockwise rings enclose the small side; a
// clockwise ring means the rest of the earth, as documented), and a polygon is the region left of all of
// its rings, so holes are clockwise rings inside the exterior ring. A MultiPolygon is the union of its
// parts, which must not overlap (they may touch at points).
//
// In a container whose geospatialConfig type is Geometry (FunctionContext::geometry) the same functions
// work on the plane instead: spatial_plane.h.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "query/functions/function.h"
#include "query/functions/spatial_geojson.h"
#include "query/functions/spatial_plane.h"
#include "query/functions/spatial_sphere.h"

namespace cosmos::query {

namespace {

using namespace spatial;  // spatial_sphere.h

// ---------------------------------------------------------------------------------------------------
// GeoJSON

enum class Kind { kPoint, kLineString, kPolygon, kMultiPolygon };

struct Shape {
  Kind kind = Kind::kPoint;
  std::vector<V3> points;              // the Point
  std::vector<V3> line;                // the LineString's distinct consecutive vertices
  std::vector<Arc> line_arcs;
  bool line_closed = false;
  std::vector<Poly> polys;             // the Polygon, or the MultiPolygon's parts
};

struct Parsed {
  bool ok = false;     // a GeoJSON object of a supported type with well-formed coordinates
  std::string reason;  // empty when valid
  Shape shape;
};

struct LonLat {
  double lon, lat;
};
using RawRing = std::vector<LonLat>;
using RawPoly = std::vector<RawRing>;

const json::Value* Member(const json::Value& obj, const char* name) {
  auto it = obj.FindMember(name);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

V3 Direction(LonLat p) { return Unit(Ecef(p.lon, p.lat)); }

std::string RangeReason(const std::vector<const RawRing*>& all) {
  for (const RawRing* r : all) {
    for (LonLat p : *r) {
      if (p.lat < -90 || p.lat > 90) return "Latitude values must be between -90 and 90 degrees.";
      if (p.lon < -kMaxLongitude || p.lon > kMaxLongitude)
        return "Longitude values must be between -15069 and 15069 degrees.";
    }
  }
  return "";
}

// The vertices with consecutive repeats (and a closing repeat of the first, for rings) dropped.
std::vector<V3> Distinct(const RawRing& raw, bool ring) {
  std::vector<V3> v;
  for (LonLat p : raw) {
    V3 d = Direction(p);
    if (v.empty() || !SamePoint(v.back(), d)) v.push_back(d);
  }
  while (ring && v.size() > 1 && SamePoint(v.back(), v.front())) v.pop_back();
  return v;
}

bool HasAntipodalEdge(const std::vector<V3>& v, bool ring) {
  size_t n = ring ? v.size() : v.size() - 1;
  for (size_t i = 0; i < n; ++i) {
    V3 a = v[i], b = v[(i + 1) % v.size()];
    if (Norm(Cross(a, b)) <= kEps && Dot(a, b) < 0) return true;
  }
  return false;
}

std::vector<const Arc*> Pointers(const std::vector<Arc>& arcs) {
  std::vector<const Arc*> out;
  for (const Arc& a : arcs) out.push_back(&a);
  return out;
}

// Sets the reason for a piece of one ring lying on (or beyond, when `beyond` is the location that may not
// occur) another ring or polygon; returns whether the walk may go on.
bool PieceReason(int ring, Loc l, Loc beyond, std::string& reason) {
  if (l == Loc::kBoundary) {
    reason = geojson::IntersectsItself(ring);
  } else if (l == beyond) {
    reason = geojson::LiesInInterior(ring);
  }
  return reason.empty();
}

bool RingPairReason(int ring, Loc l, std::string& reason) { return PieceReason(ring, l, Loc::kOutside, reason); }

// Builds and checks one polygon's rings, numbering them from `first_ring`; returns the reason it is
// invalid, or "".
std::string BuildPolygon(const RawPoly& raw, int first_ring, Poly& out) {
  for (size_t i = 0; i < raw.size(); ++i) {
    int number = first_ring + static_cast<int>(i);
    const RawRing& r = raw[i];
    if (r.size() < 4) return geojson::RingTooShort(number);
    if (!SamePoint(Direction(r.front()), Direction(r.back()))) return geojson::RingNotClosed(number);
    Ring ring;
    ring.v = Distinct(r, true);
    if (ring.v.size() < 3) return geojson::RingTooFewDistinct(number);
    if (HasAntipodalEdge(ring.v, true)) {
      return "Not valid because an edge of curve " + geojson::RingText(number) +
             " is a line or a degenerate arc with antipodal endpoints.";
    }
    for (size_t k = 0; k < ring.v.size(); ++k) {
      ring.arcs.push_back(MakeArc(ring.v[k], ring.v[(k + 1) % ring.v.size()], number));
    }
    // A ring must be simple: edges meet only where consecutive edges share their vertex.
    const size_t n = ring.arcs.size();
    ArcIndex index(Pointers(ring.arcs));
    bool simple = true;
    for (size_t x = 0; x < n && simple; ++x) {
      index.ForEachNear(ArcBox(ring.arcs[x]), [&](const Arc& other) {
        size_t y = static_cast<size_t>(&other - ring.arcs.data());
        if (y <= x) return;
        bool adjacent = y == x + 1 || (x == 0 && y == n - 1);
        if (adjacent ? ArcsOverlap(ring.arcs[x], other) : ArcsIntersect(ring.arcs[x], other)) simple = false;
      });
    }
    if (!simple) {
      return geojson::IntersectsItself(number);
    }
    ring.left_area = LeftArea(ring.arcs);
    ring.box = PathBox(ring.arcs);
    if (!(ring.left_area > 0 && ring.left_area < 4 * kPi)) {
      return geojson::IntersectsItself(number);
    }
    out.rings.push_back(std::move(ring));
  }
  // Rings may touch at points but not cross or share edges, and each must lie on the inner side of
  // every other (holes inside the exterior ring and outside one another).
  if (out.rings.size() < 2) return "";
  std::vector<ArcIndex> indexes;
  for (const Ring& r : out.rings) indexes.emplace_back(Pointers(r.arcs));
  std::string reason;
  for (size_t i = 0; i < out.rings.size() && reason.empty(); ++i) {
    for (size_t j = 0; j < out.rings.size() && reason.empty(); ++j) {
      if (i == j) continue;
      const Ring& other = out.rings[j];
      WalkPath(
          out.rings[i].arcs, out.rings[i].box, indexes[j], [&](V3 q) { return LocateInRing(other, q); },
          [&](const Arc& arc, V3, Loc l) { return RingPairReason(arc.ring, l, reason); });
    }
  }
  return reason;
}

// Parses a GeoJSON geometry and checks it against the service's validity rules.
Parsed ParseGeometry(Val v) {
  Parsed out;
  if (!v.IsObject()) return out;
  const json::Value* type = Member(v.json(), "type");
  const json::Value* coords = Member(v.json(), "coordinates");
  if (!type || !type->IsString() || !coords) return out;
  std::string_view t(type->GetString(), type->GetStringLength());
  Shape& s = out.shape;
  if (t == "Point") {
    LonLat p;
    if (!geojson::ReadPosition(*coords, p)) return out;
    out.ok = true;
    RawRing one = {p};
    out.reason = RangeReason({&one});
    if (out.reason.empty()) s.points.push_back(Direction(p));
    s.kind = Kind::kPoint;
    return out;
  }
  if (t == "LineString") {
    RawRing line;
    if (!geojson::ReadPositions(*coords, line)) return out;
    out.ok = true;
    s.kind = Kind::kLineString;
    out.reason = RangeReason({&line});
    if (!out.reason.empty()) return out;
    s.line = Distinct(line, false);
    if (s.line.size() < 2) {
      out.reason = geojson::LineTooShort();
      return out;
    }
    if (HasAntipodalEdge(s.line, false)) {
      out.reason = "Not valid because an edge of curve (1) is a line or a degenerate arc with antipodal endpoints.";
      return out;
    }
    for (size_t i = 0; i + 1 < s.line.size(); ++i) s.line_arcs.push_back(MakeArc(s.line[i], s.line[i + 1], 0));
    s.line_closed = SamePoint(s.line.front(), s.line.back());
    ArcIndex index(Pointers(s.line_arcs));
    bool overlap = false;
    for (size_t i = 0; i < s.line_arcs.size() && !overlap; ++i) {
      index.ForEachNear(ArcBox(s.line_arcs[i]), [&](const Arc& other) {
        if (&other > &s.line_arcs[i] && ArcsOverlap(s.line_arcs[i], other)) overlap = true;
      });
    }
    if (overlap) out.reason = "Not valid because of two overlapping edges in curve (1).";
    return out;
  }
  if (t != "Polygon" && t != "MultiPolygon") return out;
  std::vector<RawPoly> raw;
  if (!geojson::ReadPolygons(*coords, t == "MultiPolygon", raw)) return out;
  s.kind = t == "Polygon" ? Kind::kPolygon : Kind::kMultiPolygon;
  out.ok = true;
  std::vector<const RawRing*> all;
  for (const RawPoly& p : raw) {
    for (const RawRing& r : p) all.push_back(&r);
  }
  out.reason = RangeReason(all);
  if (!out.reason.empty()) return out;
  int ring_number = 1;
  for (const RawPoly& p : raw) {
    s.polys.emplace_back();
    out.reason = BuildPolygon(p, ring_number, s.polys.back());
    if (!out.reason.empty()) return out;
    ring_number += static_cast<int>(p.size());
  }
  // The parts of a MultiPolygon may touch at points but share no area and no edge.
  if (s.polys.size() < 2) return out;
  std::vector<ArcIndex> indexes;
  for (const Poly& p : s.polys) indexes.emplace_back(ArcsOf(p));
  for (size_t i = 0; i < s.polys.size() && out.reason.empty(); ++i) {
    for (size_t j = 0; j < s.polys.size() && out.reason.empty(); ++j) {
      if (i == j) continue;
      const Poly& other = s.polys[j];
      for (const Ring& r : s.polys[i].rings) {
        WalkPath(
            r.arcs, r.box, indexes[j], [&](V3 q) { return LocateInPoly(other, q); },
            [&](const Arc& arc, V3, Loc l) { return PieceReason(arc.ring, l, Loc::kInside, out.reason); });
        if (!out.reason.empty()) break;
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Predicates and measures

std::vector<const Arc*> AllArcs(const Shape& s) {
  std::vector<const Arc*> out = ArcsOf(s.polys);
  for (const Arc& a : s.line_arcs) out.push_back(&a);
  return out;
}

// Whether q lies on or in the closed point set of the shape.
bool Touches(const Shape& s, V3 q) {
  for (V3 p : s.points) {
    if (SamePoint(p, q)) return true;
  }
  for (const Arc& a : s.line_arcs) {
    if (OnArc(q, a)) return true;
  }
  return !s.polys.empty() && LocateInPolys(s.polys, q) != Loc::kOutside;
}

// One vertex of every connected piece of boundary, for containment without boundary contact.
std::vector<V3> Representatives(const Shape& s) {
  std::vector<V3> out = s.points;
  if (!s.line.empty()) out.push_back(s.line.front());
  for (const Poly& p : s.polys) {
    for (const Ring& r : p.rings) out.push_back(r.v.front());
  }
  return out;
}

bool Intersects(const Shape& x, const Shape& y) {
  for (V3 q : Representatives(x)) {
    if (Touches(y, q)) return true;
  }
  for (V3 q : Representatives(y)) {
    if (Touches(x, q)) return true;
  }
  ArcIndex ya(AllArcs(y));
  bool hit = false;
  for (const Arc* a : AllArcs(x)) {
    ya.ForEachNear(ArcBox(*a), [&](const Arc& b) { hit = hit || ArcsIntersect(*a, b); });
    if (hit) return true;
  }
  return false;
}

// Whether one polygon lies in a union of polygons with some interior in common (see Within).
bool PolyWithin(const Poly& part, const std::vector<Poly>& region) {
  ArcIndex region_index(ArcsOf(region));
  bool interior = false, outside = false;
  const Arc* shared = nullptr;
  V3 shared_mid;
  for (const Ring& r : part.rings) {
    WalkPath(
        r.arcs, r.box, region_index, [&](V3 q) { return LocateInPolys(region, q); },
        [&](const Arc& arc, V3 mid, Loc l) {
          if (l == Loc::kOutside) outside = true;
          if (l == Loc::kInside) interior = true;
          if (l == Loc::kBoundary && !shared) {
            shared = &arc;
            shared_mid = mid;
          }
          return !outside;
        });
    if (outside) return false;
  }
  // No piece of the region's boundary may pass through the part's interior (a hole of the region there).
  ArcIndex part_index(ArcsOf(part));
  bool hole = false;
  for (const Poly& p : region) {
    for (const Ring& r : p.rings) {
      WalkPath(
          r.arcs, r.box, part_index, [&](V3 q) { return LocateInPoly(part, q); },
          [&](const Arc&, V3, Loc l) { return !(hole = hole || l == Loc::kInside); });
      if (hole) return false;
    }
  }
  if (interior) return true;
  // The whole boundary runs along the region's boundary: inside when the interiors lie on the same side.
  if (!shared) return false;
  for (const Arc* arc : region_index.arcs()) {
    if (OnArc(shared_mid, *arc)) return Dot(arc->n, shared->n) > 0;
  }
  return false;
}

// OGC "within": x lies in y and their interiors meet.
bool Within(const Shape& x, const Shape& y) {
  switch (x.kind) {
    case Kind::kPoint: {
      V3 q = x.points[0];
      if (y.kind == Kind::kPoint) return SamePoint(q, y.points[0]);
      if (y.kind == Kind::kLineString) {
        if (!y.line_closed && (SamePoint(q, y.line.front()) || SamePoint(q, y.line.back()))) return false;
        for (const Arc& a : y.line_arcs) {
          if (OnArc(q, a)) return true;
        }
        return false;
      }
      return LocateInPolys(y.polys, q) == Loc::kInside;
    }
    case Kind::kLineString: {
      if (y.kind == Kind::kPoint) return false;
      ArcIndex cutters(AllArcs(y));
      // On a line, "inside" means on it; in polygons, strictly inside.
      auto locate = [&](V3 q) {
        if (y.kind != Kind::kLineString) return LocateInPolys(y.polys, q);
        for (const Arc& b : y.line_arcs) {
          if (OnArc(q, b)) return Loc::kInside;
        }
        return Loc::kOutside;
      };
      bool interior = false, outside = false;
      WalkPath(x.line_arcs, PathBox(x.line_arcs), cutters, locate, [&](const Arc&, V3, Loc l) {
        outside = outside || l == Loc::kOutside;
        interior = interior || l == Loc::kInside;
        return !outside;
      });
      return interior && !outside;
    }
    case Kind::kPolygon:
    case Kind::kMultiPolygon:
      if (y.kind != Kind::kPolygon && y.kind != Kind::kMultiPolygon) return false;
      for (const Poly& p : x.polys) {
        if (!PolyWithin(p, y.polys)) return false;
      }
      return true;
  }
  return false;
}

// Shortest distance (m) from a point to an arc: the endpoints, or near the foot of the perpendicular,
// where a golden-section search on the ellipsoidal length settles the exact minimum.
double PointArcDistance(V3 q, const Arc& arc) {
  double best = std::min(DistanceBetween(q, arc.a), DistanceBetween(q, arc.b));
  V3 f = q - arc.n * Dot(q, arc.n);
  if (Norm(f) <= 1e-15) return best;
  double t0 = ArcParam(arc, f);
  if (!(t0 > 0 && t0 < arc.len)) return best;
  double reach = 0.02 * std::atan2(std::fabs(Dot(q, arc.n)), Norm(f)) + 1e-9;
  double lo = std::max(0.0, t0 - reach), hi = std::min(arc.len, t0 + reach);
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = DistanceBetween(q, ArcPoint(arc, x1)), f2 = DistanceBetween(q, ArcPoint(arc, x2));
  for (int i = 0; i < 100 && hi - lo > 1e-14; ++i) {
    if (f1 < f2) {
      hi = x2, x2 = x1, f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = DistanceBetween(q, ArcPoint(arc, x1));
    } else {
      lo = x1, x1 = x2, f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = DistanceBetween(q, ArcPoint(arc, x2));
    }
  }
  return std::min({best, f1, f2});
}

std::vector<V3> Sites(const Shape& s) {
  std::vector<V3> out = s.points;
  out.insert(out.end(), s.line.begin(), s.line.end());
  for (const Poly& p : s.polys) {
    for (const Ring& r : p.rings) out.insert(out.end(), r.v.begin(), r.v.end());
  }
  return out;
}

// A lower bound (radians) on the angle between any points of two boxes.
double AngleBetweenBoxes(const Box& p, const Box& q) {
  double dx = std::max({0.0, p.lo.x - q.hi.x, q.lo.x - p.hi.x});
  double dy = std::max({0.0, p.lo.y - q.hi.y, q.lo.y - p.hi.y});
  double dz = std::max({0.0, p.lo.z - q.hi.z, q.lo.z - p.hi.z});
  return 2 * std::asin(std::min(1.0, std::sqrt(dx * dx + dy * dy + dz * dz) / 2));
}

// Consecutive arcs (or sites) in groups of up to 32, with their bounds, for pruning whole groups.
template <class T, class BoxOf>
std::vector<std::pair<Box, std::vector<T>>> Chunks(const std::vector<T>& items, BoxOf box_of) {
  std::vector<std::pair<Box, std::vector<T>>> out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i % 32 == 0) out.push_back({kEmptyBox, {}});
    out.back().first = Union(out.back().first, box_of(items[i]));
    out.back().second.push_back(items[i]);
  }
  return out;
}

// The distance between two disjoint shapes is attained at a point or vertex of one of them. A great
// elliptic arc is never shorter than b times its geocentric angle, which prunes hopeless candidates
// group by group.
double Distance(const Shape& x, const Shape& y) {
  if (x.kind == Kind::kPoint && y.kind == Kind::kPoint) return DistanceBetween(x.points[0], y.points[0]);
  if (Intersects(x, y)) return 0;
  constexpr double kSlack = 1 - 1e-12;
  double best = std::numeric_limits<double>::infinity();
  auto from = [&best](const std::vector<V3>& sites, const Shape& other) {
    auto arc_chunks = Chunks(AllArcs(other), [](const Arc* a) { return ArcBox(*a); });
    Box bounds = kEmptyBox;
    for (const auto& c : arc_chunks) bounds = Union(bounds, c.first);
    for (V3 p : other.points) bounds = Union(bounds, Box{p, p});
    std::vector<std::pair<double, size_t>> order;
    std::vector<size_t> candidates;
    for (const auto& [site_box, group] : Chunks(sites, [](V3 p) { return Box{p, p}; })) {
      if (kB * AngleBetweenBoxes(site_box, bounds) * kSlack > best) continue;
      candidates.clear();
      for (size_t c = 0; c < arc_chunks.size(); ++c) {
        if (kB * AngleBetweenBoxes(site_box, arc_chunks[c].first) * kSlack <= best) candidates.push_back(c);
      }
      for (V3 q : group) {
        for (V3 p : other.points) best = std::min(best, DistanceBetween(q, p));
        order.clear();
        for (size_t c : candidates) {
          order.push_back({kB * AngleBetweenBoxes(Box{q, q}, arc_chunks[c].first) * kSlack, c});
        }
        std::sort(order.begin(), order.end());
        for (const auto& [bound, c] : order) {
          if (bound > best) break;
          for (const Arc* a : arc_chunks[c].second) {
            if (kB * AngleToArc(q, *a) * kSlack > best) continue;
            best = std::min(best, PointArcDistance(q, *a));
          }
        }
      }
    }
  };
  from(Sites(x), y);
  from(Sites(y), x);
  return best;
}

// The ellipsoidal area (m^2) left of a ring: the integral of -a^2/2 q(phi) dlambda along its edges, plus
// the polar cap it winds around; nullopt when an edge passes through a pole (longitude undefined).
std::optional<double> RingArea(const Ring& ring) {
  static constexpr std::array<double, 8> kX = {-0.9602898564975363, -0.7966664774136267, -0.5255324099163290,
                                               -0.1834346424956498, 0.1834346424956498,  0.5255324099163290,
                                               0.7966664774136267,  0.9602898564975363};
  static constexpr std::array<double, 8> kW = {0.1012285362903763, 0.2223810344533745, 0.3137066458778873,
                                               0.3626837833783620, 0.3626837833783620, 0.3137066458778873,
                                               0.2223810344533745, 0.1012285362903763};
  const double qp = AuthalicQ(1);
  auto sin_lat = [](V3 d) {
    // Geodetic latitude of the surface point in geocentric direction d.
    double phi = std::atan2(d.z * kA * kA, std::hypot(d.x, d.y) * kB * kB);
    return std::sin(phi);
  };
  double integral = 0, total_dl = 0;
  for (const Arc& arc : ring.arcs) {
    if (std::fabs(AngleToArc({0, 0, 1}, arc)) < 1e-9 || std::fabs(AngleToArc({0, 0, -1}, arc)) < 1e-9) {
      return std::nullopt;
    }
    double dl = std::atan2(arc.b.y, arc.b.x) - std::atan2(arc.a.y, arc.a.x);
    if (dl > kPi) dl -= 2 * kPi;
    if (dl < -kPi) dl += 2 * kPi;
    total_dl += dl;
    // Near a pole, integrate q - q(pole) (which vanishes there) and add the pole's share exactly.
    V3 mid = Unit(arc.a + arc.b);
    double near_pole = std::min(AngleToArc({0, 0, 1}, arc), AngleToArc({0, 0, -1}, arc));
    double base = near_pole < 0.3 ? (mid.z >= 0 ? qp : -qp) : 0;
    integral += base * dl;
    int segments = 1 + static_cast<int>(arc.len / 0.02);
    double h = arc.len / segments;
    V3 dir = Cross(arc.n, arc.a);
    for (int s = 0; s < segments; ++s) {
      for (size_t k = 0; k < kX.size(); ++k) {
        double t = h * s + h * (kX[k] + 1) / 2;
        V3 d = arc.a * std::cos(t) + dir * std::sin(t);
        V3 dd = arc.a * -std::sin(t) + dir * std::cos(t);
        double dlam = (d.x * dd.y - d.y * dd.x) / (d.x * d.x + d.y * d.y);
        integral += kW[k] * h / 2 * (AuthalicQ(sin_lat(d)) - base) * dlam;
      }
    }
  }
  const double total = 2 * kPi * kA * kA * qp;
  double area = -kA * kA / 2 * integral;
  if (std::fabs(total_dl) > kPi) area += kPi * kA * kA * qp;  // winds once around the polar axis
  area = std::fmod(area, total);
  if (area < 0) area += total;
  return area;
}

std::optional<double> Area(const Shape& s) {
  const double total = 2 * kPi * kA * kA * AuthalicQ(1);
  double sum = 0;
  for (const Poly& p : s.polys) {
    double part = 0;
    for (const Ring& r : p.rings) {
      auto a = RingArea(r);
      if (!a) return std::nullopt;
      part += *a;
    }
    sum += part - (static_cast<double>(p.rings.size()) - 1) * total;
  }
  return sum;
}

// ---------------------------------------------------------------------------------------------------
// The functions

bool Usable(const Parsed& p) { return p.ok && p.reason.empty(); }
bool Usable(const plane::Parsed& p) { return p.ok && p.reason.empty(); }

// The two arguments in the planar model (a geometry container), when both are valid.
std::optional<std::pair<plane::Shape, plane::Shape>> PlanarPair(std::span<const Val> args) {
  if (!args[0].IsObject() || !args[1].IsObject()) return std::nullopt;
  plane::Parsed x = plane::Parse(args[0].json()), y = plane::Parse(args[1].json());
  if (!Usable(x) || !Usable(y)) return std::nullopt;
  return std::pair{std::move(x.shape), std::move(y.shape)};
}

plane::Parsed PlanarOne(Val v) { return v.IsObject() ? plane::Parse(v.json()) : plane::Parsed{}; }

Val StDistance(FunctionContext& ctx, std::span<const Val> args) {
  if (ctx.geometry) {
    auto p = PlanarPair(args);
    return p ? ctx.arena.Number(plane::Distance(p->first, p->second)) : Val();
  }
  Parsed x = ParseGeometry(args[0]), y = ParseGeometry(args[1]);
  if (!Usable(x) || !Usable(y)) return Val();
  return ctx.arena.Number(Distance(x.shape, y.shape));
}

Val StWithin(FunctionContext& ctx, std::span<const Val> args) {
  if (ctx.geometry) {
    auto p = PlanarPair(args);
    return p ? Arena::Bool(plane::Within(p->first, p->second)) : Val();
  }
  Parsed x = ParseGeometry(args[0]), y = ParseGeometry(args[1]);
  if (!Usable(x) || !Usable(y)) return Val();
  return Arena::Bool(Within(x.shape, y.shape));
}

Val StIntersects(FunctionContext& ctx, std::span<const Val> args) {
  if (ctx.geometry) {
    auto p = PlanarPair(args);
    return p ? Arena::Bool(plane::Intersects(p->first, p->second)) : Val();
  }
  Parsed x = ParseGeometry(args[0]), y = ParseGeometry(args[1]);
  if (!Usable(x) || !Usable(y)) return Val();
  return Arena::Bool(Intersects(x.shape, y.shape));
}

// Whether the argument is a supported GeoJSON object, and the reason it is invalid ("" when valid).
std::optional<std::string> Validity(FunctionContext& ctx, Val v) {
  if (ctx.geometry) {
    plane::Parsed x = PlanarOne(v);
    if (!x.ok) return std::nullopt;
    return x.reason;
  }
  Parsed x = ParseGeometry(v);
  if (!x.ok) return std::nullopt;
  return x.reason;
}

Val StIsValid(FunctionContext& ctx, std::span<const Val> args) {
  auto reason = Validity(ctx, args[0]);
  if (!reason) return Val();
  return Arena::Bool(reason->empty());
}

Val StIsValidDetailed(FunctionContext& ctx, std::span<const Val> args) {
  auto reason = Validity(ctx, args[0]);
  if (!reason) return Val();
  json::Value* obj = ctx.arena.NewObject();
  ctx.arena.Set(obj, "valid", Arena::Bool(reason->empty()));
  if (!reason->empty()) ctx.arena.Set(obj, "reason", ctx.arena.String(*reason));
  return Val(obj);
}

Val StArea(FunctionContext& ctx, std::span<const Val> args) {
  if (ctx.geometry) {
    plane::Parsed x = PlanarOne(args[0]);
    if (!Usable(x)) return Val();
    return ctx.arena.Number(plane::Area(x.shape));
  }
  Parsed x = ParseGeometry(args[0]);
  if (!Usable(x)) return Val();
  auto area = Area(x.shape);
  if (!area) return Val();
  return ctx.arena.Number(*area);
}

constexpr FunctionDef kSpatialFunctions[] = {
    {"ST_AREA", 1, 1, StArea},
    {"ST_DISTANCE", 2, 2, StDistance},
    {"ST_INTERSECTS", 2, 2, StIntersects},
    {"ST_ISVALID", 1, 1, StIsValid},
    {"ST_ISVALIDDETAILED", 1, 1, StIsValidDetailed},
    {"ST_WITHIN", 2, 2, StWithin},
};

}  // namespace

std::span<const FunctionDef> SpatialFunctions() { return kSpatialFunctions; }

}  // namespace cosmos::query
