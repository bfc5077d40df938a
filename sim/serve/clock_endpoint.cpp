// /eksim/v1/clock: GET the clock; POST {"action":"advance","by":"5m"}, {"action":"until",
// "condition":"pod/gpu-pod Running","timeout":"1h"}, {"action":"pause"}, {"action":"resume"},
// {"action":"speed","speed":"600"}, {"action":"at","time":"12m"} (back in time on a replay only).
// What `eksim ctl` calls.
#include "sim/scenario/input_limits.hpp"
#include "sim/serve/api_handler.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

json clock_state(Session& s) {
  return {{"kind", "Clock"},
          {"apiVersion", "eksim/v1"},
          {"scenario", s.scenario().name},
          {"seed", s.seed()},
          {"now", engine::format_duration(s.now().us ? engine::Duration{s.now().us} : engine::Duration{})},
          {"nowMicroseconds", s.now().us},
          {"speed", speed_text(s.speed)},
          {"paused", s.speed.paused},
          {"openWatches", s.open_watches ? s.open_watches() : 0},
          {"replay", s.replay()},
          {"recordedUntil", engine::format_duration(s.recorded_until())}};
}

}  // namespace

HttpResponse handle_clock(Session& s, const HttpRequest& req) {
  if (req.method == "GET") return json_response(clock_state(s));
  if (req.method != "POST") return status_error(405, "MethodNotAllowed", "the clock accepts GET and POST");
  json body = json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body.contains("action") || !body["action"].is_string())
    return bad_request("expected a JSON object with \"action\": advance, until, at, pause, resume or speed");
  std::string action = body["action"];
  if (action == "pause") {
    s.speed.paused = true;
  } else if (action == "resume") {
    s.speed.paused = false;
  } else if (action == "speed") {
    std::string error;
    auto sp = parse_speed(body.value("speed", ""), &error);
    if (!sp) return bad_request(error);
    s.speed = *sp;
  } else if (action == "advance") {
    auto d = engine::parse_duration(body.value("by", ""));
    if (!d || d->us <= 0) return bad_request("advance: expected a positive duration such as 30s, 5m or 1h, got \"" + body.value("by", "") + "\"");
    if (*d > scenario::kMaxSimulatedTime) return bad_request("advance: at most one year of simulated time at once");
    s.advance_to(s.now() + *d);
  } else if (action == "at") {
    auto t = engine::parse_duration(body.value("time", ""));
    if (!t || t->us < 0 || *t > scenario::kMaxSimulatedTime)
      return bad_request("at: expected a simulated time since the start such as 0s, 12m or 1h30m, got \"" + body.value("time", "") + "\"");
    engine::SimTime target = engine::SimTime{} + *t;
    if (target < s.now() && !s.replay())
      return bad_request("at: only a recorded run (eksim serve --replay FILE) goes back in time; this one is live and goes forward "
                 "(now " + engine::format_duration(engine::Duration{s.now().us}) + ")");
    s.go_to(target);
  } else if (action == "until") {
    std::string error;
    auto cond = parse_until(body.value("condition", ""), &error);
    if (!cond) return bad_request("until: " + error);
    auto limit = engine::parse_duration(body.value("timeout", "1h"));
    if (!limit || limit->us <= 0 || *limit > scenario::kMaxSimulatedTime) return bad_request("until: timeout must be a positive duration up to a year");
    if (!s.advance_until(*cond, *limit)) {
      HttpResponse r = status_error(408, "Timeout", "until: \"" + body.value("condition", "") + "\" did not happen within " +
                                                        engine::format_duration(*limit) + " of simulated time");
      return r;
    }
  } else {
    return bad_request("unknown clock action \"" + action + "\": advance, until, at, pause, resume or speed");
  }
  return json_response(clock_state(s));
}

}  // namespace eksim::serve
