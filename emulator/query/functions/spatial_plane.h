// The spatial functions' planar model, for containers whose geospatialConfig type is Geometry: the
// coordinates are x and y on a flat plane (no longitude or latitude range), two points are joined by
// a straight segment, distances are Euclidean in the coordinates' own unit and areas are in that unit
// squared. A polygon's first ring is its exterior and the others are holes, whatever their
// orientation (OGC simple features, as SQL Server's geometry type reads them). spatial.cpp calls
// these when the query's FunctionContext says the container is a geometry container.
#pragma once

#include <string>
#include <vector>

#include "json/json.h"

namespace cosmos::query::spatial::plane {

struct P2 {
  double x = 0, y = 0;
};

struct Ring {
  std::vector<P2> v;  // distinct vertices, not closed (the last joins the first)
};

struct Polygon {
  std::vector<Ring> rings;  // rings[0]: the exterior; the rest: holes
};

enum class Type { kPoint, kLineString, kPolygon, kMultiPolygon };

struct Shape {
  Type type = Type::kPoint;
  P2 point;
  std::vector<P2> line;            // the LineString's distinct consecutive vertices
  std::vector<Polygon> polygons;   // the Polygon, or the MultiPolygon's parts
};

struct Parsed {
  bool ok = false;     // a GeoJSON object of a supported type with well-formed coordinates
  std::string reason;  // empty when valid
  Shape shape;
};

// Reads a GeoJSON Point, LineString, Polygon or MultiPolygon and checks it against the planar
// validity rules (the same messages as the geography checks, without the coordinate ranges).
Parsed Parse(const json::Value& v);

double Distance(const Shape& a, const Shape& b);
bool Intersects(const Shape& a, const Shape& b);
// OGC "within": a lies in b and their interiors meet.
bool Within(const Shape& a, const Shape& b);
// The area of a Polygon or MultiPolygon (0 for points and lines).
double Area(const Shape& s);

}  // namespace cosmos::query::spatial::plane
