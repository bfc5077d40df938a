#pragma once
// eksim's own pod annotations (eksim.io/duration, exit-code, image-size, stop-time) decoded once,
// where the manifest is decoded: by the scenario reader for pods and pod templates, by the API
// server of `eksim serve` when a client changes them. The kubelet reads the typed values
// (k8s::RunAnnotations); a value that does not decode is refused as the API server refuses an
// invalid field, instead of running the container with a default.
#include <optional>
#include <string>

#include "models/k8s/api/objects.hpp"

namespace eksim::scenario {

struct RunAnnotationError {
  std::string key;          // the annotation refused
  std::string field_error;  // "PATH[KEY]: Invalid value: \"boom\": must be ..." (field.Invalid)
};

// Decodes the eksim.io annotations among annotations into out (others are left alone). path
// names where they are ("metadata.annotations", "spec.template.metadata.annotations").
std::optional<RunAnnotationError> decode_run_annotations(const k8s::Labels& annotations, const std::string& path,
                                                         k8s::RunAnnotations& out);

}  // namespace eksim::scenario
