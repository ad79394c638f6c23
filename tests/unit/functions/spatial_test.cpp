// Spatial functions: the service's documented examples, the WGS-84 great-elliptic-arc model, and
// containment / intersection / validity on points, lines, polygons with holes and multipolygons.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <numbers>
#include <string>
#include <string_view>
#include <vector>

#include "json/json.h"
#include "query/functions/function.h"
#include "function_test.h"

namespace cosmos::query {
namespace {

constexpr double kA = 6378137.0;
constexpr double kB = kA * (1 - 1 / 298.257223563);
constexpr double kEarthArea = 510065621724088.5;  // WGS-84 ellipsoid surface, m^2

class SpatialTest : public FunctionTest {
 protected:
  std::string Run(std::string_view name, std::vector<Val> args) { return Str(Call(name, std::move(args))); }
  double Num(std::string_view name, std::vector<Val> args) {
    Val v = Call(name, std::move(args));
    EXPECT_TRUE(v.IsNumber()) << name << " gave " << Str(v);
    return v.IsNumber() ? v.AsNumber() : std::nan("");
  }
  double Dist(std::string_view a, std::string_view b) { return Num("ST_DISTANCE", {J(a), J(b)}); }
  std::string Within(std::string_view a, std::string_view b) { return Run("ST_WITHIN", {J(a), J(b)}); }
  std::string Intersects(std::string_view a, std::string_view b) { return Run("ST_INTERSECTS", {J(a), J(b)}); }
  std::string Valid(std::string_view a) { return Run("ST_ISVALIDDETAILED", {J(a)}); }

  static std::string Pt(double lon, double lat) {
    return "{\"type\":\"Point\",\"coordinates\":[" + Fmt(lon) + "," + Fmt(lat) + "]}";
  }
  static std::string Coords(std::initializer_list<std::pair<double, double>> pts) {
    std::string s = "[";
    for (auto [lon, lat] : pts) s += (s.size() > 1 ? ",[" : "[") + Fmt(lon) + "," + Fmt(lat) + "]";
    return s + "]";
  }
  static std::string Line(std::initializer_list<std::pair<double, double>> pts) {
    return "{\"type\":\"LineString\",\"coordinates\":" + Coords(pts) + "}";
  }
  static std::string Poly(std::initializer_list<std::string> rings) {
    std::string s = "{\"type\":\"Polygon\",\"coordinates\":[";
    bool first = true;
    for (const std::string& r : rings) s += (first ? "" : ",") + r, first = false;
    return s + "]}";
  }
  static std::string Multi(std::initializer_list<std::string> polys) {
    std::string s = "{\"type\":\"MultiPolygon\",\"coordinates\":[";
    bool first = true;
    for (const std::string& p : polys) {
      // Strip {"type":"Polygon","coordinates": and the closing brace.
      std::string body = p.substr(p.find("\"coordinates\":") + 14);
      body.pop_back();
      s += (first ? "" : ",") + body, first = false;
    }
    return s + "]}";
  }
  // A counter-clockwise box ring (interior on the left).
  static std::string Box(double w, double s, double e, double n) {
    return Coords({{w, s}, {e, s}, {e, n}, {w, n}, {w, s}});
  }
  static std::string BoxCw(double w, double s, double e, double n) {
    return Coords({{w, s}, {w, n}, {e, n}, {e, s}, {w, s}});
  }
  static std::string Fmt(double d) {
    std::string out;
    json::WriteDouble(out, d);
    return out;
  }
};

TEST_F(SpatialTest, Registered) {
  for (const char* name : {"ST_DISTANCE", "ST_WITHIN", "ST_INTERSECTS", "ST_ISVALID", "ST_ISVALIDDETAILED", "ST_AREA",
                           "st_distance", "St_Within"}) {
    EXPECT_NE(FindFunction(name), nullptr) << name;
  }
}

// ---- the documented examples ----

TEST_F(SpatialTest, DocumentedDistanceExample) {
  std::string target = Pt(-122.11758113953535, 47.66901087006131);
  // The service's results: 3.345269817267368 km and 1907.438421299902 km.
  EXPECT_NEAR(Dist(Pt(-122.12826822304672, 47.63980239335718), target), 3345.269817267368, 1e-3);
  EXPECT_NEAR(Dist(Pt(-96.84368664765994, 46.81297794314663), target), 1907438.421299902, 1e-3);
}

TEST_F(SpatialTest, DocumentedWithinExample) {
  EXPECT_EQ(Within(Pt(-122.12824857332558, 47.6395516675712),
                   Poly({Coords({{-122.13236581015025, 47.64606476313813},
                                 {-122.13221982500913, 47.633757091363975},
                                 {-122.11840598103835, 47.641749416109235},
                                 {-122.12061400629656, 47.64589264786028},
                                 {-122.13236581015025, 47.64606476313813}})})),
            "true");
}

TEST_F(SpatialTest, DocumentedIntersectsExample) {
  std::string highway = Poly({Coords({{-122.13693695285855, 47.64996065621003},
                                      {-122.1351662656516, 47.64627863318731},
                                      {-122.13488295569863, 47.646326350048696},
                                      {-122.1366182291613, 47.650016321952904},
                                      {-122.13693695285855, 47.64996065621003}})});
  std::string campus = Poly({Coords({{-122.14034847687708, 47.6494835188378},
                                     {-122.14014779899375, 47.64625477474044},
                                     {-122.13256925774829, 47.646207057813655},
                                     {-122.13254564858545, 47.64941990019193},
                                     {-122.14034847687708, 47.6494835188378}})});
  EXPECT_EQ(Intersects(highway, campus), "true");
}

TEST_F(SpatialTest, DocumentedValidityExamples) {
  EXPECT_EQ(Run("ST_ISVALID", {J(Pt(-84.38876194345323, 33.75682784306348))}), "true");
  EXPECT_EQ(Run("ST_ISVALID", {J(Pt(133.75682784306348, -184.38876194345323))}), "false");
  EXPECT_EQ(Valid(Pt(-84.38876194345323, 33.75682784306348)), "{\"valid\":true}");
  EXPECT_EQ(Valid(Pt(133.75682784306348, -184.38876194345323)),
            "{\"valid\":false,\"reason\":\"Latitude values must be between -90 and 90 degrees.\"}");
  EXPECT_EQ(Valid(Poly({Coords({{31.8, -5}, {31.8, -4.7}, {32, -4.7}, {32, -5}})})),
            "{\"valid\":false,\"reason\":\"The Polygon input is not valid because the start and end points of the "
            "ring number 1 are not the same. Each ring of a polygon must have the same start and end points.\"}");
}

TEST_F(SpatialTest, DocumentedAreaExample) {
  // The service's result: 735970283.0522614 m^2.
  EXPECT_NEAR(Num("ST_AREA", {J(Poly({Box(31.8, -5, 32, -4.7)}))}), 735970283.0522614, 1.0);
  EXPECT_EQ(Run("ST_AREA", {J(Pt(1, 2))}), "0");
  EXPECT_EQ(Run("ST_AREA", {J(Line({{1, 2}, {3, 4}}))}), "0");
}

// ---- the earth model ----

TEST_F(SpatialTest, GreatEllipticArcLengths) {
  // Along the equator the cut is the equatorial circle; along a meridian the meridian ellipse.
  EXPECT_NEAR(Dist(Pt(0, 0), Pt(1, 0)), kA * std::numbers::pi / 180, 1e-6);
  EXPECT_NEAR(Dist(Pt(0, 0), Pt(0, 1)), 110574.38855779909, 1e-4);
  EXPECT_NEAR(Dist(Pt(0, 0), Pt(0, 90)), 10001965.729230, 1e-3);  // the WGS-84 meridian quadrant
  EXPECT_NEAR(Dist(Pt(0, -90), Pt(0, 90)), 20003931.458460, 2e-3);
  // Antipodes: half the meridian ellipse, whatever the plane.
  EXPECT_NEAR(Dist(Pt(0, 0), Pt(180, 0)), 20003931.458460, 2e-3);
  EXPECT_NEAR(Dist(Pt(30, 20), Pt(-150, -20)), 20003931.458460, 2e-3);
  // Reference lengths from integrating the arc numerically.
  EXPECT_NEAR(Dist(Pt(0, 0), Pt(90, 45)), 10010393.425367283, 1e-3);
  EXPECT_NEAR(Dist(Pt(-70.6693, -33.4489), Pt(151.2093, -33.8688)), 11368999.269554798, 1e-3);
  EXPECT_NEAR(Dist(Pt(10, 89), Pt(-170, 89)), 223387.72982839984, 1e-3);
  EXPECT_NEAR(Dist(Pt(-179.5, 10), Pt(179.5, -10)), 2214481.072109671, 1e-3);
  EXPECT_NEAR(Dist(Pt(2.3522, 48.8566), Pt(-74.006, 40.7128)), 5852937.511146106, 1e-3);
  // Same point, symmetry, wrapped longitudes.
  EXPECT_EQ(Dist(Pt(12.5, 41.9), Pt(12.5, 41.9)), 0);
  EXPECT_EQ(Dist(Pt(10, 20), Pt(30, 40)), Dist(Pt(30, 40), Pt(10, 20)));
  EXPECT_NEAR(Dist(Pt(-180, 10), Pt(180, 10)), 0, 1e-6);
  EXPECT_NEAR(Dist(Pt(190, 10), Pt(-170, 10)), 0, 1e-6);
  // Tiny separations stay exact: 1e-9 degrees of longitude at the equator.
  EXPECT_NEAR(Dist(Pt(0, 0), Pt(1e-9, 0)), kA * std::numbers::pi / 180 * 1e-9, 1e-9);
}

TEST_F(SpatialTest, DistanceIsAtLeastTheGeodesicAndClose) {
  // The documented example pair differs from the true geodesic (Vincenty: 1907438.3420 m) by 8 cm.
  double d = Dist(Pt(-96.84368664765994, 46.81297794314663), Pt(-122.11758113953535, 47.66901087006131));
  EXPECT_GT(d, 1907438.3420);
  EXPECT_LT(d, 1907438.3420 + 0.1);
  // A great elliptic arc is never shorter than b times, nor longer than a times, the geocentric angle.
  for (int i = 0; i < 50; ++i) {
    double lon1 = -170 + 7.1 * i, lat1 = -80 + 3.3 * i, lon2 = 100 - 5.3 * i, lat2 = 70 - 2.9 * i;
    double dist = Dist(Pt(lon1, lat1), Pt(lon2, lat2));
    EXPECT_GE(dist, 0);
    EXPECT_LE(dist, 20037508.35);  // half the equator
  }
}

// ---- containment ----

TEST_F(SpatialTest, PointInPolygonWithHoles) {
  std::string p = Poly({Box(0, 0, 10, 10), BoxCw(4, 4, 6, 6)});
  EXPECT_EQ(Run("ST_ISVALID", {J(p)}), "true");
  EXPECT_EQ(Within(Pt(2, 2), p), "true");
  EXPECT_EQ(Within(Pt(5, 5), p), "false");     // in the hole
  EXPECT_EQ(Within(Pt(11, 5), p), "false");    // outside
  EXPECT_EQ(Within(Pt(-5, -5), p), "false");
  EXPECT_EQ(Within(Pt(-175, 10), p), "false");  // far side of the earth
  EXPECT_EQ(Within(Pt(0, 5), p), "false");     // on the exterior ring
  EXPECT_EQ(Within(Pt(4, 5), p), "false");     // on the hole's ring
  EXPECT_EQ(Within(Pt(10, 10), p), "false");   // a vertex
  EXPECT_EQ(Intersects(Pt(0, 5), p), "true");
  EXPECT_EQ(Intersects(Pt(4, 5), p), "true");
  EXPECT_EQ(Intersects(Pt(5, 5), p), "false");
  EXPECT_EQ(Intersects(Pt(2, 2), p), "true");
}

TEST_F(SpatialTest, EdgesAreGreatEllipticArcsNotParallels) {
  // The northern edge from (0,60) to (40,60) bulges north (to about 61.5 degrees at 20 E), so a point at
  // (20, 61) is inside although it is north of 60.
  std::string p = Poly({Box(0, 50, 40, 60)});
  EXPECT_EQ(Within(Pt(20, 61), p), "true");
  EXPECT_EQ(Within(Pt(20, 61.8), p), "false");
  // The southern edge bulges north as well: (20, 50.5) is outside.
  EXPECT_EQ(Within(Pt(20, 50.5), p), "false");
  EXPECT_EQ(Within(Pt(20, 52), p), "true");
}

TEST_F(SpatialTest, ClockwiseRingMeansTheRestOfTheEarth) {
  std::string ccw = Poly({Box(0, 0, 10, 10)});
  std::string cw = Poly({BoxCw(0, 0, 10, 10)});
  EXPECT_EQ(Within(Pt(5, 5), ccw), "true");
  EXPECT_EQ(Within(Pt(5, 5), cw), "false");
  EXPECT_EQ(Within(Pt(50, 50), ccw), "false");
  EXPECT_EQ(Within(Pt(50, 50), cw), "true");
  EXPECT_EQ(Within(Pt(-170, -80), cw), "true");
  EXPECT_EQ(Within(Pt(0, 5), cw), "false");  // the boundary is shared
  EXPECT_NEAR(Num("ST_AREA", {J(ccw)}) + Num("ST_AREA", {J(cw)}), kEarthArea, 1e3);
}

TEST_F(SpatialTest, PolygonsAcrossTheAntimeridianAndAroundAPole) {
  std::string across = Poly({Coords({{170, -10}, {-170, -10}, {-170, 10}, {170, 10}, {170, -10}})});
  EXPECT_EQ(Within(Pt(180, 0), across), "true");
  EXPECT_EQ(Within(Pt(-175, 5), across), "true");
  EXPECT_EQ(Within(Pt(175, -5), across), "true");
  EXPECT_EQ(Within(Pt(0, 0), across), "false");
  EXPECT_EQ(Within(Pt(160, 0), across), "false");
  // A ring at 80 N going east encloses the north pole.
  std::string cap = Poly({Coords({{0, 80}, {90, 80}, {180, 80}, {-90, 80}, {0, 80}})});
  EXPECT_EQ(Within(Pt(0, 90), cap), "true");
  EXPECT_EQ(Within(Pt(123, 85), cap), "true");
  EXPECT_EQ(Within(Pt(45, 70), cap), "false");
  EXPECT_EQ(Within(Pt(0, -90), cap), "false");
  // The same ring going west is everything south of it.
  std::string south = Poly({Coords({{0, 80}, {-90, 80}, {180, 80}, {90, 80}, {0, 80}})});
  EXPECT_EQ(Within(Pt(0, 90), south), "false");
  EXPECT_EQ(Within(Pt(0, -90), south), "true");
  EXPECT_EQ(Within(Pt(45, 70), south), "true");
  EXPECT_NEAR(Num("ST_AREA", {J(cap)}) + Num("ST_AREA", {J(south)}), kEarthArea, 1e3);
}

TEST_F(SpatialTest, MultiPolygonContainment) {
  std::string m = Multi({Poly({Box(52, 12, 53, 13)}), Poly({Box(50, 0, 51, 5)})});
  EXPECT_EQ(Run("ST_ISVALID", {J(m)}), "true");
  EXPECT_EQ(Within(Pt(52.5, 12.5), m), "true");
  EXPECT_EQ(Within(Pt(50.5, 2), m), "true");
  EXPECT_EQ(Within(Pt(51.5, 8), m), "false");
  EXPECT_EQ(Intersects(Pt(53, 12.5), m), "true");
  EXPECT_EQ(Within(Pt(53, 12.5), m), "false");
  EXPECT_NEAR(Num("ST_AREA", {J(m)}),
              Num("ST_AREA", {J(Poly({Box(52, 12, 53, 13)}))}) + Num("ST_AREA", {J(Poly({Box(50, 0, 51, 5)}))}), 1e-3);
}

TEST_F(SpatialTest, LinesAndPolygons) {
  std::string p = Poly({Box(0, 0, 10, 10), BoxCw(4, 4, 6, 6)});
  EXPECT_EQ(Within(Line({{1, 1}, {3, 2}}), p), "true");
  EXPECT_EQ(Within(Line({{1, 1}, {5, 5}}), p), "false");   // ends in the hole
  EXPECT_EQ(Within(Line({{1, 1}, {8, 8}}), p), "false");   // crosses the hole
  EXPECT_EQ(Within(Line({{1, 1}, {12, 2}}), p), "false");  // leaves the polygon
  EXPECT_EQ(Within(Line({{0, 1}, {0, 3}}), p), "false");   // only on the boundary
  EXPECT_EQ(Within(Line({{0, 1}, {2, 3}}), p), "true");    // touches the boundary, runs inside
  EXPECT_EQ(Intersects(Line({{-5, 5}, {15, 5}}), p), "true");
  EXPECT_EQ(Intersects(Line({{-5, -5}, {-1, 20}}), p), "false");
  EXPECT_EQ(Intersects(Line({{4.5, 4.5}, {5.5, 5.5}}), p), "false");  // inside the hole
  EXPECT_EQ(Intersects(Line({{-5, 0}, {0, 0}}), p), "true");           // touches a vertex
  EXPECT_EQ(Within(p, Line({{1, 1}, {3, 2}})), "false");
}

TEST_F(SpatialTest, LinesAndPoints) {
  std::string l = Line({{0, 0}, {10, 0}, {10, 10}});
  EXPECT_EQ(Intersects(Pt(5, 0), l), "true");
  EXPECT_EQ(Intersects(Pt(5, 0.001), l), "false");
  EXPECT_EQ(Within(Pt(5, 0), l), "true");
  EXPECT_EQ(Within(Pt(10, 0), l), "true");   // an interior vertex
  EXPECT_EQ(Within(Pt(0, 0), l), "false");   // an endpoint is the line's boundary
  EXPECT_EQ(Within(Pt(10, 10), l), "false");
  EXPECT_EQ(Within(Line({{2, 0}, {10, 0}, {10, 3}}), l), "true");
  EXPECT_EQ(Within(Line({{2, 0}, {12, 0}}), l), "false");
  EXPECT_EQ(Within(l, Pt(5, 0)), "false");
  EXPECT_EQ(Intersects(Line({{5, -5}, {5, 5}}), l), "true");
  EXPECT_EQ(Intersects(Line({{11, -5}, {11, 5}}), l), "false");
  EXPECT_EQ(Intersects(Line({{10, 10}, {20, 20}}), l), "true");  // shared endpoint
  EXPECT_EQ(Within(Pt(3, 4), Pt(3, 4)), "true");
  EXPECT_EQ(Intersects(Pt(3, 4), Pt(3, 4)), "true");
  EXPECT_EQ(Intersects(Pt(3, 4), Pt(3, 4.0001)), "false");
}

TEST_F(SpatialTest, PolygonsAgainstPolygons) {
  std::string big = Poly({Box(0, 0, 10, 10)});
  std::string holed = Poly({Box(0, 0, 10, 10), BoxCw(4, 4, 6, 6)});
  std::string small = Poly({Box(1, 1, 3, 3)});
  std::string in_hole = Poly({Box(4.5, 4.5, 5.5, 5.5)});
  std::string over_hole = Poly({Box(3, 3, 7, 7)});
  std::string overlap = Poly({Box(8, 8, 12, 12)});
  std::string apart = Poly({Box(20, 20, 30, 30)});
  std::string edge_touch = Poly({Box(10, 2, 12, 4)});
  EXPECT_EQ(Within(small, big), "true");
  EXPECT_EQ(Within(small, holed), "true");
  EXPECT_EQ(Within(big, small), "false");
  EXPECT_EQ(Within(in_hole, holed), "false");
  EXPECT_EQ(Within(in_hole, big), "true");
  EXPECT_EQ(Within(over_hole, holed), "false");  // the hole is inside it
  EXPECT_EQ(Within(overlap, big), "false");
  EXPECT_EQ(Within(big, big), "true");
  EXPECT_EQ(Within(holed, big), "true");
  EXPECT_EQ(Within(big, holed), "false");
  EXPECT_EQ(Within(big, Poly({BoxCw(0, 0, 10, 10)})), "false");  // same ring, other side
  EXPECT_EQ(Within(Poly({Box(0, 0, 10, 5)}), big), "true");      // shares three edges
  EXPECT_EQ(Intersects(small, big), "true");
  EXPECT_EQ(Intersects(in_hole, holed), "false");
  EXPECT_EQ(Intersects(over_hole, holed), "true");
  EXPECT_EQ(Intersects(overlap, big), "true");
  EXPECT_EQ(Intersects(apart, big), "false");
  EXPECT_EQ(Intersects(edge_touch, big), "true");
  EXPECT_EQ(Intersects(Poly({BoxCw(20, 20, 30, 30)}), big), "true");  // everything but the far box
  EXPECT_EQ(Within(big, Poly({BoxCw(20, 20, 30, 30)})), "true");
  EXPECT_EQ(Within(Multi({small, apart}), Multi({big, Poly({Box(19, 19, 31, 31)})})), "true");
  EXPECT_EQ(Within(Multi({small, apart}), big), "false");
  EXPECT_EQ(Intersects(Multi({apart, Poly({Box(40, 40, 41, 41)})}), big), "false");
}

// ---- distances to lines and areas ----

TEST_F(SpatialTest, DistanceToLinesAndPolygons) {
  // Along the equator from a point north of it: the nearest point is on the edge, not at a vertex.
  double d = Dist(Pt(5, 1), Line({{0, 0}, {10, 0}}));
  EXPECT_NEAR(d, Dist(Pt(5, 1), Pt(5, 0)), 0.5);
  EXPECT_LT(d, Dist(Pt(5, 1), Pt(0, 0)));
  // Inside or on a polygon the distance is zero; outside it is the distance to the boundary.
  std::string p = Poly({Box(0, 0, 10, 10), BoxCw(4, 4, 6, 6)});
  EXPECT_EQ(Dist(Pt(2, 2), p), 0);
  EXPECT_EQ(Dist(Pt(0, 5), p), 0);
  EXPECT_NEAR(Dist(Pt(5, 5), p), Dist(Pt(5, 5), Line({{4, 4}, {4, 6}, {6, 6}, {6, 4}, {4, 4}})), 1e-6);
  EXPECT_GT(Dist(Pt(5, 5), p), 100000);
  EXPECT_NEAR(Dist(Pt(-1, 5), p), Dist(Pt(-1, 5), Line({{0, 0}, {0, 10}})), 1e-6);
  EXPECT_NEAR(Dist(Pt(-3, -4), p), Dist(Pt(-3, -4), Pt(0, 0)), 1e-6);
  // Between disjoint shapes.
  EXPECT_NEAR(Dist(Line({{20, 0}, {20, 10}}), p), Dist(Line({{20, 0}, {20, 10}}), Line({{10, 0}, {10, 10}})), 1e-6);
  EXPECT_EQ(Dist(Line({{-5, 5}, {15, 5}}), p), 0);
  EXPECT_NEAR(Dist(Poly({Box(20, 0, 21, 1)}), Pt(10, 0)), Dist(Pt(20, 0), Pt(10, 0)), 1e-6);
  EXPECT_EQ(Dist(Poly({Box(1, 1, 3, 3)}), p), 0);
}

// Geodetic [lon, lat] of the point a fraction t along the great elliptic arc between two positions.
std::pair<double, double> AlongArc(double lon1, double lat1, double lon2, double lat2, double t) {
  auto ecef = [](double lon, double lat) {
    double e2 = 1 - (kB * kB) / (kA * kA);
    double la = lat * std::numbers::pi / 180, lo = lon * std::numbers::pi / 180;
    double n = kA / std::sqrt(1 - e2 * std::sin(la) * std::sin(la));
    std::array<double, 3> p = {n * std::cos(la) * std::cos(lo), n * std::cos(la) * std::sin(lo),
                               n * (1 - e2) * std::sin(la)};
    double r = std::hypot(p[0], p[1], p[2]);
    return std::array<double, 3>{p[0] / r, p[1] / r, p[2] / r};
  };
  auto a = ecef(lon1, lat1), b = ecef(lon2, lat2);
  double om = std::acos(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
  std::array<double, 3> d;
  for (int i = 0; i < 3; ++i) d[i] = (std::sin((1 - t) * om) * a[i] + std::sin(t * om) * b[i]) / std::sin(om);
  double lat = std::atan2(d[2] * kA * kA, std::hypot(d[0], d[1]) * kB * kB) * 180 / std::numbers::pi;
  double lon = std::atan2(d[1], d[0]) * 180 / std::numbers::pi;
  return {lon, lat};
}

TEST_F(SpatialTest, DistanceToAnEdgeMatchesDenseSampling) {
  struct Case {
    double px, py, x1, y1, x2, y2;
  };
  for (Case c : {Case{5, 1, 0, 0, 10, 0}, Case{-73.9, 40.7, -80, 35, -70, 45}, Case{20, 70, 0, 60, 40, 60},
                 Case{100, -30, 90, -45, 120, -20}, Case{179, 5, 170, 0, -170, 10}}) {
    double fn = Dist(Pt(c.px, c.py), Line({{c.x1, c.y1}, {c.x2, c.y2}}));
    // Coarse sampling, then fine sampling around the best coarse sample.
    double sampled = 1e300, best_t = 0;
    for (int i = 0; i <= 2000; ++i) {
      auto [lon, lat] = AlongArc(c.x1, c.y1, c.x2, c.y2, i / 2000.0);
      double d = Dist(Pt(c.px, c.py), Pt(lon, lat));
      if (d < sampled) sampled = d, best_t = i / 2000.0;
    }
    for (int i = -1000; i <= 1000; ++i) {
      double t = best_t + i / 1000.0 / 2000.0;
      if (t < 0 || t > 1) continue;
      auto [lon, lat] = AlongArc(c.x1, c.y1, c.x2, c.y2, t);
      sampled = std::min(sampled, Dist(Pt(c.px, c.py), Pt(lon, lat)));
    }
    EXPECT_LE(fn, sampled + 1e-6) << c.px << "," << c.py;
    EXPECT_GE(fn, sampled - 0.01) << c.px << "," << c.py;
  }
}

// Gnomonic coordinates about a centre: great elliptic arcs (great circles in geocentric directions)
// become straight segments, so planar tests there are an independent reference for the topology.
struct Gnomonic {
  std::array<double, 3> c, e1, e2;
  static std::array<double, 3> Dir(double lon, double lat) {
    double e2 = 1 - (kB * kB) / (kA * kA);
    double la = lat * std::numbers::pi / 180, lo = lon * std::numbers::pi / 180;
    double n = 1 / std::sqrt(1 - e2 * std::sin(la) * std::sin(la));
    std::array<double, 3> p = {n * std::cos(la) * std::cos(lo), n * std::cos(la) * std::sin(lo),
                               n * (1 - e2) * std::sin(la)};
    double r = std::hypot(p[0], p[1], p[2]);
    return {p[0] / r, p[1] / r, p[2] / r};
  }
  Gnomonic(double lon, double lat) {
    c = Dir(lon, lat);
    std::array<double, 3> z = {0, 0, 1};
    e1 = {z[1] * c[2] - z[2] * c[1], z[2] * c[0] - z[0] * c[2], z[0] * c[1] - z[1] * c[0]};
    double n = std::hypot(e1[0], e1[1], e1[2]);
    for (double& v : e1) v /= n;
    e2 = {c[1] * e1[2] - c[2] * e1[1], c[2] * e1[0] - c[0] * e1[2], c[0] * e1[1] - c[1] * e1[0]};
  }
  std::pair<double, double> operator()(double lon, double lat) const {
    auto p = Dir(lon, lat);
    double d = p[0] * c[0] + p[1] * c[1] + p[2] * c[2];
    return {(p[0] * e1[0] + p[1] * e1[1] + p[2] * e1[2]) / d, (p[0] * e2[0] + p[1] * e2[1] + p[2] * e2[2]) / d};
  }
};

TEST_F(SpatialTest, TopologyAgreesWithTheGnomonicPlane) {
  uint64_t seed = 12345;
  auto rnd = [&seed]() {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(seed >> 11) / 9007199254740992.0;
  };
  int checked = 0;
  for (int poly = 0; poly < 40; ++poly) {
    // A random star-shaped ring (counter-clockwise) of up to 20 degrees around a random centre.
    double clon = -180 + 360 * rnd(), clat = -70 + 140 * rnd(), size = 0.01 + 20 * rnd();
    int n = 3 + static_cast<int>(12 * rnd());
    std::vector<std::pair<double, double>> ring;
    for (int k = 0; k < n; ++k) {
      double ang = 2 * std::numbers::pi * (k + 0.8 * rnd()) / n, r = size * (0.3 + 0.7 * rnd());
      ring.push_back({clon + r * std::cos(ang) / std::cos(clat * std::numbers::pi / 180),
                      std::clamp(clat + r * std::sin(ang), -89.0, 89.0)});
    }
    Gnomonic g(clon, clat);
    std::vector<std::pair<double, double>> plane;
    for (auto [lon, lat] : ring) plane.push_back(g(lon, lat));
    // Keep only rings that are simple and counter-clockwise in the plane.
    double twice_area = 0;
    for (int k = 0; k < n; ++k) {
      auto [x1, y1] = plane[k];
      auto [x2, y2] = plane[(k + 1) % n];
      twice_area += x1 * y2 - x2 * y1;
    }
    std::string coords = "[";
    for (int k = 0; k <= n; ++k) {
      coords += (k ? ",[" : "[") + Fmt(ring[k % n].first) + "," + Fmt(ring[k % n].second) + "]";
    }
    coords += "]";
    std::string polygon = Poly({coords});
    if (twice_area <= 0 || Run("ST_ISVALID", {J(polygon)}) != "true") continue;
    for (int t = 0; t < 25; ++t) {
      double plon = clon + 2.5 * size * (rnd() - 0.5) / std::cos(clat * std::numbers::pi / 180);
      double plat = std::clamp(clat + 2.5 * size * (rnd() - 0.5), -89.9, 89.9);
      auto [px, py] = g(plon, plat);
      bool inside = false;
      double nearest = 1e300;
      for (int k = 0; k < n; ++k) {
        auto [x1, y1] = plane[k];
        auto [x2, y2] = plane[(k + 1) % n];
        if ((y1 > py) != (y2 > py) && px < x1 + (py - y1) * (x2 - x1) / (y2 - y1)) inside = !inside;
        double len2 = (x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1);
        double u = std::clamp(((px - x1) * (x2 - x1) + (py - y1) * (y2 - y1)) / len2, 0.0, 1.0);
        nearest = std::min(nearest, std::hypot(px - x1 - u * (x2 - x1), py - y1 - u * (y2 - y1)));
      }
      if (nearest < 1e-9) continue;  // too close to the boundary to call
      EXPECT_EQ(Within(Pt(plon, plat), polygon), inside ? "true" : "false") << polygon << " " << plon << "," << plat;
      EXPECT_EQ(Intersects(Pt(plon, plat), polygon), inside ? "true" : "false");
      // The clockwise ring holds exactly the points the counter-clockwise one does not.
      std::string reversed = "[";
      for (int k = n; k >= 0; --k) {
        reversed += (k != n ? ",[" : "[") + Fmt(ring[k % n].first) + "," + Fmt(ring[k % n].second) + "]";
      }
      EXPECT_EQ(Within(Pt(plon, plat), Poly({reversed + "]"})), inside ? "false" : "true");
      // A segment from the point to the centre crosses the ring exactly when the point is outside
      // (the ring is star-shaped about a point near the centre, so check the plane instead).
      auto [cx, cy] = g(clon, clat);
      bool crosses = false;
      for (int k = 0; k < n; ++k) {
        auto [x1, y1] = plane[k];
        auto [x2, y2] = plane[(k + 1) % n];
        auto side = [](double ax, double ay, double bx, double by, double qx, double qy) {
          return (bx - ax) * (qy - ay) - (by - ay) * (qx - ax);
        };
        if ((side(x1, y1, x2, y2, px, py) > 0) != (side(x1, y1, x2, y2, cx, cy) > 0) &&
            (side(px, py, cx, cy, x1, y1) > 0) != (side(px, py, cx, cy, x2, y2) > 0)) {
          crosses = true;
        }
      }
      std::string seg = Line({{plon, plat}, {clon, clat}});
      std::string ring_line = "{\"type\":\"LineString\",\"coordinates\":" + coords + "}";
      EXPECT_EQ(Intersects(seg, ring_line), crosses ? "true" : "false") << seg << " " << ring_line;
      ++checked;
    }
  }
  EXPECT_GT(checked, 300);
}

TEST_F(SpatialTest, AreasAddUpAndInvert) {
  // The equator ring going east encloses the northern hemisphere: half the ellipsoid.
  std::string north = Poly({Coords({{0, 0}, {90, 0}, {180, 0}, {-90, 0}, {0, 0}})});
  EXPECT_NEAR(Num("ST_AREA", {J(north)}), kEarthArea / 2, 1e3);
  // A box, and the same box cut by its meridian into two boxes and the sliver between the arcs.
  double whole = Num("ST_AREA", {J(Poly({Box(0, 0, 90, 45)}))});
  double west = Num("ST_AREA", {J(Poly({Box(0, 0, 45, 45)}))});
  double east = Num("ST_AREA", {J(Poly({Box(45, 0, 90, 45)}))});
  double sliver = Num("ST_AREA", {J(Poly({Coords({{0, 45}, {45, 45}, {90, 45}, {0, 45}})}))});
  EXPECT_NEAR(whole, west + east + sliver, 1.0);
  EXPECT_GT(sliver, 0);
  // A hole takes its area away.
  double outer = Num("ST_AREA", {J(Poly({Box(0, 0, 10, 10)}))});
  double hole = Num("ST_AREA", {J(Poly({Box(4, 4, 6, 6)}))});
  EXPECT_NEAR(Num("ST_AREA", {J(Poly({Box(0, 0, 10, 10), BoxCw(4, 4, 6, 6)}))}), outer - hole, 1.0);
  // Near the pole.
  double cap = Num("ST_AREA", {J(Poly({Coords({{0, 89}, {120, 89}, {-120, 89}, {0, 89}})}))});
  EXPECT_GT(cap, 0);
  EXPECT_LT(cap, 2 * std::numbers::pi * std::pow(111700.0, 2));
  // An edge through a pole leaves the longitude undefined.
  EXPECT_EQ(Run("ST_AREA", {J(Poly({Coords({{0, 80}, {180, 80}, {90, 70}, {0, 80}})}))}), "undefined");
}

// ---- validity ----

TEST_F(SpatialTest, ValidityReasons) {
  EXPECT_EQ(Valid(Pt(181, 10)), "{\"valid\":true}");
  EXPECT_EQ(Valid(Pt(15070, 10)),
            "{\"valid\":false,\"reason\":\"Longitude values must be between -15069 and 15069 degrees.\"}");
  EXPECT_EQ(Valid(Pt(0, 90)), "{\"valid\":true}");
  EXPECT_EQ(Valid(Pt(0, 90.000001)),
            "{\"valid\":false,\"reason\":\"Latitude values must be between -90 and 90 degrees.\"}");
  EXPECT_EQ(Valid(Line({{0, 0}, {1, 1}})), "{\"valid\":true}");
  EXPECT_EQ(Valid(Line({{0, 0}, {1, 1}, {0, 1}, {1, 0}})), "{\"valid\":true}");  // lines may cross themselves
  const std::string few = "The LineString input is not valid because it does not have enough distinct points. A "
                          "LineString must have at least two distinct points.";
  EXPECT_EQ(Valid(Line({{0, 0}})), "{\"valid\":false,\"reason\":\"" + few + "\"}");
  EXPECT_EQ(Valid(Line({{0, 0}, {0, 0}})), "{\"valid\":false,\"reason\":\"" + few + "\"}");
  EXPECT_EQ(Valid("{\"type\":\"LineString\",\"coordinates\":[]}"), "{\"valid\":false,\"reason\":\"" + few + "\"}");
  EXPECT_EQ(Valid(Line({{0, 0}, {2, 0}, {1, 0}, {3, 0}})),
            "{\"valid\":false,\"reason\":\"Not valid because of two overlapping edges in curve (1).\"}");
  EXPECT_EQ(Valid(Line({{0, 0}, {180, 0}})),
            "{\"valid\":false,\"reason\":\"Not valid because an edge of curve (1) is a line or a degenerate arc with "
            "antipodal endpoints.\"}");
  EXPECT_EQ(Valid(Line({{0, 95}, {1, 1}})),
            "{\"valid\":false,\"reason\":\"Latitude values must be between -90 and 90 degrees.\"}");

  EXPECT_EQ(Valid(Poly({Coords({{0, 0}, {1, 0}, {0, 0}})})),
            "{\"valid\":false,\"reason\":\"The Polygon input is not valid because the ring number 1 does not have "
            "enough points. Each ring of a polygon must contain at least three points.\"}");
  EXPECT_EQ(Valid(Poly({Coords({{0, 0}, {1, 0}, {1, 0}, {0, 0}})})),
            "{\"valid\":false,\"reason\":\"The Polygon input is not valid because the ring number 1 does not have "
            "enough distinct points. Each ring of a polygon must contain at least three distinct points.\"}");
  EXPECT_EQ(Valid(Poly({Box(0, 0, 10, 10), Coords({{4, 4}, {4, 6}, {6, 6}, {6, 4}})})),
            "{\"valid\":false,\"reason\":\"The Polygon input is not valid because the start and end points of the "
            "ring number 2 are not the same. Each ring of a polygon must have the same start and end points.\"}");
  EXPECT_EQ(Valid(Poly({Coords({{0, 0}, {1, 1}, {1, 0}, {0, 1}, {0, 0}})})),
            "{\"valid\":false,\"reason\":\"Not valid because polygon ring (1) intersects itself or some other "
            "ring.\"}");
  EXPECT_EQ(Valid(Poly({Coords({{0, 0}, {2, 0}, {1, 0}, {1, 1}, {0, 0}})})),
            "{\"valid\":false,\"reason\":\"Not valid because polygon ring (1) intersects itself or some other "
            "ring.\"}");
  // A hole crossing the exterior ring, a hole outside it, and a counter-clockwise "hole".
  EXPECT_EQ(Valid(Poly({Box(0, 0, 10, 10), BoxCw(8, 4, 12, 6)})),
            "{\"valid\":false,\"reason\":\"Not valid because some portion of polygon ring (1) lies in the interior "
            "of a polygon.\"}");
  EXPECT_EQ(Valid(Poly({Box(0, 0, 10, 10), BoxCw(20, 4, 22, 6)})),
            "{\"valid\":false,\"reason\":\"Not valid because some portion of polygon ring (2) lies in the interior "
            "of a polygon.\"}");
  EXPECT_EQ(Run("ST_ISVALID", {J(Poly({Box(0, 0, 10, 10), Box(4, 4, 6, 6)}))}), "false");
  // A hole touching the exterior ring at one point is fine; sharing an edge is not.
  EXPECT_EQ(Run("ST_ISVALID", {J(Poly({Box(0, 0, 10, 10), Coords({{0, 5}, {3, 6}, {3, 4}, {0, 5}})}))}), "true");
  EXPECT_EQ(Run("ST_ISVALID", {J(Poly({Box(0, 0, 10, 10), BoxCw(0, 4, 3, 6)}))}), "false");
  // MultiPolygon parts may touch at points but not overlap.
  EXPECT_EQ(Run("ST_ISVALID", {J(Multi({Poly({Box(0, 0, 1, 1)}), Poly({Box(1, 1, 2, 2)})}))}), "true");
  EXPECT_EQ(Valid(Multi({Poly({Box(0, 0, 2, 2)}), Poly({Box(1, 1, 3, 3)})})),
            "{\"valid\":false,\"reason\":\"Not valid because some portion of polygon ring (1) lies in the interior "
            "of a polygon.\"}");
  EXPECT_EQ(Run("ST_ISVALID", {J(Multi({Poly({Box(0, 0, 1, 1)}), Poly({Box(1, 0, 2, 1)})}))}), "false");
  EXPECT_EQ(Run("ST_ISVALID", {J(Multi({Poly({Box(0, 0, 3, 3)}), Poly({Box(1, 1, 2, 2)})}))}), "false");
  // Invalid input makes the other functions undefined.
  EXPECT_EQ(Run("ST_DISTANCE", {J(Pt(0, 91)), J(Pt(0, 0))}), "undefined");
  EXPECT_EQ(Run("ST_WITHIN", {J(Pt(0, 0)), J(Poly({Coords({{0, 0}, {1, 1}, {1, 0}, {0, 1}, {0, 0}})}))}),
            "undefined");
  EXPECT_EQ(Run("ST_INTERSECTS", {J(Line({{0, 0}})), J(Pt(0, 0))}), "undefined");
  EXPECT_EQ(Run("ST_AREA", {J(Poly({Coords({{0, 0}, {1, 0}, {0, 0}})}))}), "undefined");
}

TEST_F(SpatialTest, UnsupportedOrMalformedInputIsUndefined) {
  for (const char* bad : {"1", "\"Point\"", "null", "[1,2]", "{}", "{\"type\":\"Point\"}",
                          "{\"type\":\"point\",\"coordinates\":[1,2]}", "{\"type\":\"Point\",\"coordinates\":[1]}",
                          "{\"type\":\"Point\",\"coordinates\":[1,2,3,4]}",
                          "{\"type\":\"Point\",\"coordinates\":[\"1\",2]}",
                          "{\"type\":\"Point\",\"coordinates\":[[1,2]]}",
                          "{\"type\":\"LineString\",\"coordinates\":[1,2]}",
                          "{\"type\":\"Polygon\",\"coordinates\":[]}", "{\"type\":\"Polygon\",\"coordinates\":[[1,2]]}",
                          "{\"type\":\"MultiPolygon\",\"coordinates\":[]}",
                          "{\"type\":\"MultiPoint\",\"coordinates\":[[1,2]]}",
                          "{\"type\":\"MultiLineString\",\"coordinates\":[[[1,2],[3,4]]]}",
                          "{\"type\":\"GeometryCollection\",\"geometries\":[]}",
                          "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}"}) {
    EXPECT_EQ(Run("ST_ISVALID", {J(bad)}), "undefined") << bad;
    EXPECT_EQ(Run("ST_ISVALIDDETAILED", {J(bad)}), "undefined") << bad;
    EXPECT_EQ(Run("ST_DISTANCE", {J(bad), J(Pt(0, 0))}), "undefined") << bad;
    EXPECT_EQ(Run("ST_WITHIN", {J(Pt(0, 0)), J(bad)}), "undefined") << bad;
    EXPECT_EQ(Run("ST_INTERSECTS", {J(bad), J(Pt(0, 0))}), "undefined") << bad;
    EXPECT_EQ(Run("ST_AREA", {J(bad)}), "undefined") << bad;
  }
  EXPECT_EQ(Run("ST_DISTANCE", {Val(), J(Pt(0, 0))}), "undefined");
  // An altitude is allowed and ignored; other members are ignored.
  EXPECT_EQ(Run("ST_ISVALID", {J("{\"type\":\"Point\",\"coordinates\":[1,2,300]}")}), "true");
  EXPECT_EQ(Dist("{\"type\":\"Point\",\"coordinates\":[1,2,300],\"crs\":{}}", Pt(1, 2)), 0);
}

TEST_F(SpatialTest, LargeGeometriesStayFast) {
  // A 400-vertex ring approximating a circle of radius 5 degrees.
  std::string ring = "[";
  for (int i = 0; i <= 400; ++i) {
    double t = 2 * std::numbers::pi * (i % 400) / 400;
    ring += (i ? ",[" : "[") + Fmt(20 + 5 * std::cos(t)) + "," + Fmt(40 + 5 * std::sin(t)) + "]";
  }
  ring += "]";
  std::string circle = Poly({ring});
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Run("ST_ISVALID", {J(circle)}), "true");
  EXPECT_EQ(Within(Pt(20, 40), circle), "true");
  EXPECT_EQ(Within(Pt(30, 40), circle), "false");
  EXPECT_GT(Dist(Pt(30, 40), circle), 300000);
  EXPECT_GT(Num("ST_AREA", {J(circle)}), 0);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5.0);
}

// ---- a geometry container (geospatialConfig type Geometry): the plane ----

class PlanarSpatialTest : public SpatialTest {
 protected:
  PlanarSpatialTest() { geometry_ = true; }
};

TEST_F(PlanarSpatialTest, DistancesAreEuclidean) {
  EXPECT_EQ(Dist(Pt(0, 0), Pt(3, 4)), 5);
  // In the coordinates' own unit, whatever their size: no longitude or latitude range.
  EXPECT_EQ(Dist(Pt(-1000, 2000), Pt(2000, -2000)), 5000);
  EXPECT_DOUBLE_EQ(Dist(Pt(1, 5), Line({{0, 0}, {4, 0}})), 5);
  EXPECT_DOUBLE_EQ(Dist(Pt(7, 4), Line({{0, 0}, {4, 0}})), 5);
  EXPECT_DOUBLE_EQ(Dist(Pt(10, 1), Poly({Box(0, 0, 4, 4)})), 6);
  EXPECT_EQ(Dist(Pt(1, 1), Poly({Box(0, 0, 4, 4)})), 0);
  // Inside a hole: the distance to the hole's edge.
  EXPECT_DOUBLE_EQ(Dist(Pt(5, 5), Poly({Box(0, 0, 10, 10), BoxCw(3, 3, 7, 7)})), 2);
  EXPECT_DOUBLE_EQ(Dist(Poly({Box(0, 0, 1, 1)}), Poly({Box(4, 5, 6, 6)})), 5);
  EXPECT_DOUBLE_EQ(Dist(Line({{0, 3}, {10, 3}}), Line({{5, 0}, {5, -2}})), 3);
  // The baseline's constant: planar, the distance is a few units (the earth gives 66 km and more).
  EXPECT_LT(Dist("{\"type\":\"Polygon\",\"coordinates\":[[[35,10],[45,45],[15,40],[10,20],[35,10]],"
                 "[[20,30],[35,35],[30,20],[20,30]]]}",
                 Pt(30, 10)),
            10);
}

TEST_F(PlanarSpatialTest, EdgesAreStraightSegments) {
  // The query-plan baselines' cases: on the earth the edge from (-60,20) to (70,20) bulges north past
  // latitude 40 at longitude 0; on the plane it is the line y = 20.
  const std::string box = Poly({Coords({{-60, 20}, {70, 20}, {70, 70}, {-60, 70}, {-60, 20}})});
  EXPECT_EQ(Within(Pt(0, 40), box), "true");
  EXPECT_EQ(Intersects(Line({{0, 0}, {0, 40}}), box), "true");
  EXPECT_EQ(Intersects(Line({{0, 0}, {0, 19}}), box), "false");
  EXPECT_EQ(Within(Pt(0, 20), box), "false");  // on the boundary
  EXPECT_EQ(Intersects(Pt(0, 20), box), "true");
}

TEST_F(PlanarSpatialTest, RingOrientationDoesNotMatter) {
  // The first ring is the exterior whichever way it turns (no "rest of the earth").
  EXPECT_EQ(Within(Pt(1, 1), Poly({BoxCw(0, 0, 4, 4)})), "true");
  EXPECT_EQ(Within(Pt(9, 9), Poly({BoxCw(0, 0, 4, 4)})), "false");
  EXPECT_EQ(Within(Pt(5, 5), Poly({Box(0, 0, 10, 10), Box(3, 3, 7, 7)})), "false");  // in the hole
  EXPECT_EQ(Within(Pt(1, 1), Poly({Box(0, 0, 10, 10), Box(3, 3, 7, 7)})), "true");
  EXPECT_DOUBLE_EQ(Num("ST_AREA", {J(Poly({BoxCw(0, 0, 4, 3)}))}), 12);
  EXPECT_DOUBLE_EQ(Num("ST_AREA", {J(Poly({Box(0, 0, 10, 10), Box(3, 3, 7, 7)}))}), 84);
  EXPECT_DOUBLE_EQ(Num("ST_AREA", {J(Multi({Poly({Box(0, 0, 1, 1)}), Poly({Box(2, 2, 4, 4)})}))}), 5);
}

TEST_F(PlanarSpatialTest, LinesAndPolygonsWithin) {
  const std::string square = Poly({Box(0, 0, 10, 10)});
  EXPECT_EQ(Within(Line({{1, 1}, {9, 9}}), square), "true");
  EXPECT_EQ(Within(Line({{1, 1}, {11, 9}}), square), "false");
  EXPECT_EQ(Within(Line({{0, 0}, {10, 0}}), square), "false");  // along the boundary only
  EXPECT_EQ(Within(Line({{2, 0}, {3, 0}}), Line({{0, 0}, {10, 0}})), "true");
  EXPECT_EQ(Within(Poly({Box(2, 2, 4, 4)}), square), "true");
  EXPECT_EQ(Within(square, square), "true");
  EXPECT_EQ(Within(Poly({Box(2, 2, 12, 4)}), square), "false");
  EXPECT_EQ(Within(Poly({Box(2, 2, 4, 4)}), Poly({Box(0, 0, 10, 10), Box(1, 1, 5, 5)})), "false");
  EXPECT_EQ(Within(Poly({Box(6, 6, 8, 8)}), Poly({Box(0, 0, 10, 10), Box(1, 1, 5, 5)})), "true");
  EXPECT_EQ(Within(Pt(5, 0), Line({{0, 0}, {10, 0}})), "true");
  EXPECT_EQ(Within(Pt(0, 0), Line({{0, 0}, {10, 0}})), "false");  // an end point is boundary
}

TEST_F(PlanarSpatialTest, ValidityWithoutCoordinateRanges) {
  // The baseline's constant: invalid as geography (latitudes beyond 90), valid as geometry.
  const std::string big =
      Poly({Coords({{-1000, 1000}, {1000, 1000}, {1000, 4000}, {-1000, 4000}, {-1000, 1000}})});
  EXPECT_EQ(Run("ST_ISVALID", {J(big)}), "true");
  EXPECT_EQ(Valid(big), "{\"valid\":true}");
  EXPECT_EQ(Run("ST_ISVALID", {J(Pt(20000, -500))}), "true");
  // A bow tie crosses itself.
  EXPECT_EQ(Valid(Poly({Coords({{0, 0}, {4, 4}, {4, 0}, {0, 4}, {0, 0}})})),
            "{\"valid\":false,\"reason\":\"Not valid because polygon ring (1) intersects itself or some other "
            "ring.\"}");
  // A hole outside the exterior, and one crossing it.
  EXPECT_EQ(Run("ST_ISVALID", {J(Poly({Box(0, 0, 4, 4), Box(5, 5, 6, 6)}))}), "false");
  EXPECT_EQ(Run("ST_ISVALID", {J(Poly({Box(0, 0, 4, 4), Box(3, 3, 6, 6)}))}), "false");
  EXPECT_EQ(Run("ST_ISVALID", {J(Poly({Box(0, 0, 4, 4), Box(1, 1, 2, 2)}))}), "true");
  // Overlapping parts of a MultiPolygon; parts that touch at a corner are fine.
  EXPECT_EQ(Run("ST_ISVALID", {J(Multi({Poly({Box(0, 0, 4, 4)}), Poly({Box(2, 2, 6, 6)})}))}), "false");
  EXPECT_EQ(Run("ST_ISVALID", {J(Multi({Poly({Box(0, 0, 4, 4)}), Poly({Box(4, 4, 6, 6)})}))}), "true");
  // The same structural reasons as the geography checks.
  EXPECT_EQ(Run("ST_ISVALID", {J(Poly({Coords({{0, 0}, {1, 0}, {0, 0}})}))}), "false");
  EXPECT_EQ(Run("ST_ISVALID", {J(Poly({Coords({{0, 0}, {1, 0}, {1, 1}, {0, 1}})}))}), "false");
  EXPECT_EQ(Run("ST_ISVALID", {J(Line({{1, 1}, {1, 1}}))}), "false");
  // An invalid argument makes the other functions undefined, as with geography.
  EXPECT_EQ(Run("ST_DISTANCE", {J(Poly({Coords({{0, 0}, {4, 4}, {4, 0}, {0, 4}, {0, 0}})})), J(Pt(0, 0))}),
            "undefined");
  EXPECT_EQ(Run("ST_WITHIN", {J("{\"type\":\"Circle\",\"coordinates\":[0,0]}"), J(Pt(0, 0))}), "undefined");
}

}  // namespace
}  // namespace cosmos::query
