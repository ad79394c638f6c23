// What the geography (spatial.cpp) and planar (spatial_plane.cpp) models of the spatial functions
// share: reading GeoJSON coordinates into positions of their own point type, and the texts of the
// service's validity messages, which are the same in both.
#pragma once

#include <string>
#include <vector>

#include "json/json.h"

namespace cosmos::query::spatial::geojson {

// A position: an array of two or three numbers (the third, an altitude, ignored), read into `P`
// as {first, second}.
template <typename P>
bool ReadPosition(const json::Value& v, P& out) {
  if (!v.IsArray() || v.Size() < 2 || v.Size() > 3) return false;
  for (const auto& c : v.GetArray()) {
    if (!c.IsNumber()) return false;
  }
  out = {v[0].GetDouble(), v[1].GetDouble()};
  return true;
}

// An array of positions (a LineString's, or one ring of a polygon).
template <typename P>
bool ReadPositions(const json::Value& v, std::vector<P>& out) {
  if (!v.IsArray()) return false;
  for (const auto& p : v.GetArray()) {
    P q;
    if (!ReadPosition(p, q)) return false;
    out.push_back(q);
  }
  return true;
}

// A Polygon's coordinates: one or more rings.
template <typename P>
bool ReadPolygon(const json::Value& v, std::vector<std::vector<P>>& out) {
  if (!v.IsArray() || v.Empty()) return false;
  for (const auto& r : v.GetArray()) {
    out.emplace_back();
    if (!ReadPositions(r, out.back())) return false;
  }
  return true;
}

// The coordinates of a Polygon (`multi` false: one polygon) or a MultiPolygon (one or more).
template <typename P>
bool ReadPolygons(const json::Value& v, bool multi, std::vector<std::vector<std::vector<P>>>& out) {
  if (!multi) {
    out.emplace_back();
    return ReadPolygon(v, out.back());
  }
  if (!v.IsArray() || v.Empty()) return false;
  for (const auto& p : v.GetArray()) {
    out.emplace_back();
    if (!ReadPolygon(p, out.back())) return false;
  }
  return true;
}

// The validity messages (ring numbers count from 1 over a MultiPolygon's parts).
inline std::string RingText(int ring) { return "(" + std::to_string(ring) + ")"; }
inline std::string LineTooShort() {
  return "The LineString input is not valid because it does not have enough distinct points. A LineString must "
         "have at least two distinct points.";
}
inline std::string RingTooShort(int ring) {
  return "The Polygon input is not valid because the ring number " + std::to_string(ring) +
         " does not have enough points. Each ring of a polygon must contain at least three points.";
}
inline std::string RingNotClosed(int ring) {
  return "The Polygon input is not valid because the start and end points of the ring number " +
         std::to_string(ring) + " are not the same. Each ring of a polygon must have the same start and end points.";
}
inline std::string RingTooFewDistinct(int ring) {
  return "The Polygon input is not valid because the ring number " + std::to_string(ring) +
         " does not have enough distinct points. Each ring of a polygon must contain at least three distinct "
         "points.";
}
inline std::string IntersectsItself(int ring) {
  return "Not valid because polygon ring " + RingText(ring) + " intersects itself or some other ring.";
}
inline std::string LiesInInterior(int ring) {
  return "Not valid because some portion of polygon ring " + RingText(ring) + " lies in the interior of a polygon.";
}

}  // namespace cosmos::query::spatial::geojson
