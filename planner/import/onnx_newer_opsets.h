// Models of opsets 18 to 21 with Debian's libonnx 1.12, whose schemas and version converter stop
// at opset 17. A node's meaning is fixed by the latest version of its operator at or below the
// model's opset; when no operator the model uses got a new version in (17, opset], every node
// means what it meant at opset 17, so the model imports as opset 17 with no per-opset code. The
// operators that did get one are data: kChangedAfter17, taken from ONNX's operator changelog
// (docs/Changelog.md, "Version 18/19/20/21 of the default ONNX operator set"), new operators
// included. A model using one of them is refused naming the node, the operator and the opsets.
#pragma once

#include <string>
#include <vector>

namespace onnx {
class GraphProto;
}

namespace strider {
namespace onnx_import {

// The opsets in (17, opset] at which operator `op` (default domain) got a new version; empty if
// it kept its opset-17 meaning up to `opset`.
std::vector<int> versions_after_17(const std::string& op, int opset);

// Throws std::runtime_error "<path>: node '<name>' (<op>): ..." for the first node of `g`
// (subgraphs included) whose operator changed in (17, opset]; returns normally otherwise.
void check_unchanged_since_17(const onnx::GraphProto& g, int opset, const std::string& path);

}  // namespace onnx_import
}  // namespace strider
