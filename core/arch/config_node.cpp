#include "core/arch/config_node.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <filesystem>
#include <sstream>

#include "core/common/input_file.h"

namespace strider::config {

namespace fs = std::filesystem;

const ConfigNode* ConfigNode::find(const std::string& key) const {
  if (!is_map()) return nullptr;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return &children[i];
  }
  return nullptr;
}

ConfigNode* ConfigNode::find(const std::string& key) {
  return const_cast<ConfigNode*>(static_cast<const ConfigNode*>(this)->find(key));
}

const Origin* ConfigNode::key_origin(const std::string& key) const {
  if (!is_map()) return nullptr;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return &key_origins[i];
  }
  return nullptr;
}

ConfigNode& ConfigNode::put(const std::string& key, const Origin& where, ConfigNode value) {
  if (!is_map()) *this = make_map(origin);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) {
      key_origins[i] = where;
      children[i] = std::move(value);
      return children[i];
    }
  }
  keys.push_back(key);
  key_origins.push_back(where);
  children.push_back(std::move(value));
  return children.back();
}

void ConfigNode::erase(const std::string& key) {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) {
      keys.erase(keys.begin() + static_cast<std::ptrdiff_t>(i));
      key_origins.erase(key_origins.begin() + static_cast<std::ptrdiff_t>(i));
      children.erase(children.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
}

std::string ConfigNode::describe() const {
  switch (kind) {
    case Kind::kScalar: {
      // Long values (a binary file read as YAML) are cut so the message stays readable.
      constexpr size_t kMaxShown = 60;
      if (scalar.size() <= kMaxShown) return "\"" + scalar + "\"";
      return "\"" + scalar.substr(0, kMaxShown) + "...\" (" + std::to_string(scalar.size()) +
             " characters)";
    }
    case Kind::kList:
      return "a list of " + std::to_string(children.size()) +
             (children.size() == 1 ? " item" : " items");
    case Kind::kMap:
      return "a map";
    case Kind::kNull:
      break;
  }
  return "an empty value";
}

ConfigNode ConfigNode::make_map(const Origin& where) {
  ConfigNode n;
  n.kind = Kind::kMap;
  n.origin = where;
  return n;
}

ConfigNode ConfigNode::make_scalar(const std::string& text, const Origin& where) {
  ConfigNode n;
  n.kind = Kind::kScalar;
  n.scalar = text;
  n.origin = where;
  return n;
}

namespace {

// Counts the documents of a YAML stream, stopping at `limit`. yaml-cpp 0.7's LoadAll loops forever
// on some malformed streams (a stray ',' at the top level yields empty documents without end,
// jbeder/yaml-cpp#1040), so documents are counted with the parser and a bound first.
class DocumentCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { content_ = true; }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {
    content_ = true;
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    content_ = true;
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    content_ = true;
  }
  void OnMapEnd() override {}
  bool content() const { return content_; }

 private:
  bool content_ = false;
};

// Number of documents in `text` (at most `limit`), and whether any has content.
int count_documents(const std::string& text, int limit, bool* content) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentCounter counter;
  int n = 0;
  while (n < limit && parser.HandleNextDocument(counter)) ++n;
  *content = counter.content();
  return n;
}


// The origin `proto` moved to a YAML mark (values from a --set have no line).
Origin at_mark(const Origin& proto, const YAML::Mark& mark) {
  Origin o = proto;
  if (!proto.from_set() && mark.line >= 0) o.line = mark.line + 1;
  return o;
}

std::string join_key(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// Deeper than any configuration; reached only through a recursive alias (`a: &x {b: *x}`).
constexpr int kMaxDepth = 32;
// More values than any configuration holds. yaml-cpp shares an aliased node, but this tree copies
// it at every use, so nested aliases (`b: [*a, *a, ...]`, `c: [*b, *b, ...]`) grow exponentially:
// the conversion stops, with one error, after this many values.
constexpr size_t kMaxNodes = 100000;

ConfigNode convert(const YAML::Node& n, const Origin& proto, const std::string& path,
                   Diagnostics& diags, size_t& nodes, int depth = 0) {
  ConfigNode out;
  out.origin = at_mark(proto, n.Mark());
  if (depth > kMaxDepth) {
    diags.error(
        out.origin, path,
        "nested more than " + std::to_string(kMaxDepth) + " levels deep (a recursive alias?)");
    return out;
  }
  if (nodes > kMaxNodes) return out;  // already reported
  if (++nodes > kMaxNodes) {
    diags.error(out.origin, path,
                "more than " + std::to_string(kMaxNodes) +
                    " values once aliases are expanded (an alias bomb?); the limit of an arch "
                    "or run file is kMaxNodes in core/arch/config_node.cpp");
    return out;
  }
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out.kind = ConfigNode::Kind::kNull;
      break;
    case YAML::NodeType::Scalar:
      out.kind = ConfigNode::Kind::kScalar;
      out.scalar = n.Scalar();
      break;
    case YAML::NodeType::Sequence: {
      out.kind = ConfigNode::Kind::kList;
      size_t i = 0;
      for (const YAML::Node& item : n) {
        out.children.push_back(
            convert(item, proto, path + "[" + std::to_string(i) + "]", diags, nodes, depth + 1));
        ++i;
      }
      break;
    }
    case YAML::NodeType::Map:
      out.kind = ConfigNode::Kind::kMap;
      for (auto it = n.begin(); it != n.end(); ++it) {
        const Origin key_at = at_mark(proto, it->first.Mark());
        if (!it->first.IsScalar()) {
          diags.error(key_at, path,
                      "map keys must be plain names, got a " +
                          std::string(it->first.IsMap() ? "map" : "list"));
          continue;
        }
        const std::string key = it->first.Scalar();
        if (const Origin* first = out.key_origin(key)) {
          diags.error(key_at, join_key(path, key),
                      "duplicate key (first written at line " + std::to_string(first->line) + ")");
          continue;
        }
        ConfigNode value = convert(it->second, proto, join_key(path, key), diags, nodes, depth + 1);
        // An empty value (`key:`) has no mark of its own: place it at its key.
        if (value.is_null() || value.origin.line == 0) value.origin = key_at;
        out.put(key, key_at, std::move(value));
      }
      break;
  }
  return out;
}

struct Segment {
  std::string key;   // a map key, or empty for an index
  size_t index = 0;  // list index when key is empty
};

// Parses `a.b[2].c` into segments; false when malformed.
bool parse_key_path(const std::string& path, std::vector<Segment>& out) {
  size_t i = 0;
  const size_t n = path.size();
  while (true) {
    const size_t start = i;
    while (i < n && (std::isalnum(static_cast<unsigned char>(path[i])) || path[i] == '_' ||
                     path[i] == '-')) {
      ++i;
    }
    if (i == start) return false;
    out.push_back({path.substr(start, i - start), 0});
    while (i < n && path[i] == '[') {
      const size_t digits = ++i;
      while (i < n && std::isdigit(static_cast<unsigned char>(path[i]))) ++i;
      if (i == digits || i >= n || path[i] != ']' || i - digits > 9) return false;
      out.push_back({"", static_cast<size_t>(std::stoul(path.substr(digits, i - digits)))});
      ++i;
    }
    if (i == n) return true;
    if (path[i] != '.') return false;
    ++i;
  }
}

}  // namespace

std::optional<ConfigNode> load_yaml_file(const std::string& path, Diagnostics& diags) {
  Origin file_origin;
  file_origin.file = path;
  std::stringstream text;
  try {
    text.str(read_input_file(path, kMaxYamlFileBytes));
  } catch (const InputFileError& e) {
    diags.error(file_origin, e.reason());
    return std::nullopt;
  }
  file_origin.base_dir = fs::absolute(path).lexically_normal().parent_path().string();
  std::vector<YAML::Node> documents;
  try {
    bool content = false;
    const int count = count_documents(text.str(), 3, &content);
    if (count > 1 && !content) {
      diags.error(file_origin, "not a YAML mapping: the parser finds only empty documents "
                               "(a stray ',' outside [ ] or { }?)");
      return std::nullopt;
    }
    if (count > 2) {  // LoadAll could run without end here; one document is all we accept anyway
      diags.error(file_origin, "expected one YAML document, found more than 2");
      return std::nullopt;
    }
    documents = count > 1 ? YAML::LoadAll(text.str()) : std::vector<YAML::Node>{YAML::Load(text.str())};
  } catch (const YAML::Exception& e) {
    Origin o = file_origin;
    if (e.mark.line >= 0) o.line = e.mark.line + 1;
    diags.error(o, "YAML syntax error: " + e.msg);
    return std::nullopt;
  }
  if (documents.size() > 1) {
    diags.error(at_mark(file_origin, documents[1].Mark()),
                "expected one YAML document, found " + std::to_string(documents.size()));
    return std::nullopt;
  }
  const YAML::Node root = documents.empty() ? YAML::Node() : documents[0];
  size_t nodes = 0;
  ConfigNode out = convert(root, file_origin, "", diags, nodes);
  if (out.is_null()) out.origin = file_origin;
  return out;
}

void merge_into(ConfigNode& base, const ConfigNode& over) {
  if (!base.is_map() || !over.is_map()) {
    base = over;
    return;
  }
  for (size_t i = 0; i < over.keys.size(); ++i) {
    ConfigNode* existing = base.find(over.keys[i]);
    if (existing != nullptr && existing->is_map() && over.children[i].is_map()) {
      merge_into(*existing, over.children[i]);
    } else {
      base.put(over.keys[i], over.key_origins[i], over.children[i]);
    }
  }
}

void apply_set(ConfigNode& root, const std::string& assignment, const std::string& cwd,
               Diagnostics& diags) {
  const size_t eq = assignment.find('=');
  std::vector<Segment> segments;
  if (eq == std::string::npos || !parse_key_path(assignment.substr(0, eq), segments)) {
    Origin o;
    o.file = "--set " + assignment;
    diags.error(o, "expected key.path=value (e.g. arch.l2.size_bytes=524288)");
    return;
  }
  Origin so;
  so.set_key = assignment.substr(0, eq);
  so.set_value = assignment.substr(eq + 1);
  so.base_dir = cwd;

  YAML::Node parsed;
  try {
    parsed = YAML::Load(so.set_value);
  } catch (const YAML::Exception& e) {
    diags.error(so, so.set_key, "value is not valid YAML: " + e.msg);
    return;
  }
  size_t nodes = 0;
  ConfigNode value = convert(parsed, so, so.set_key, diags, nodes);
  value.origin = so;

  if (root.is_null()) root = ConfigNode::make_map(root.origin);
  ConfigNode* node = &root;
  std::string walked;
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    const bool last = i + 1 == segments.size();
    if (!s.key.empty()) {
      walked = join_key(walked, s.key);
      if (!node->is_map()) *node = ConfigNode::make_map(so);
      ConfigNode* child = node->find(s.key);
      if (last) {
        if (child != nullptr && child->is_map() && value.is_map()) {
          merge_into(*child, value);
        } else {
          node->put(s.key, so, value);
        }
        return;
      }
      if (child == nullptr && segments[i + 1].key.empty()) {
        diags.error(so, walked, "is not set, so it cannot be indexed");
        return;
      }
      if (child == nullptr) child = &node->put(s.key, so, ConfigNode::make_map(so));
      node = child;
    } else {
      if (!node->is_list()) {
        diags.error(so, walked, "cannot index " + node->describe() + ", it is not a list");
        return;
      }
      walked += "[" + std::to_string(s.index) + "]";
      if (s.index >= node->children.size()) {
        const size_t n = node->children.size();
        diags.error(so, walked,
                    "index out of range, the list has " + std::to_string(n) +
                        (n == 1 ? " item" : " items"));
        return;
      }
      ConfigNode& item = node->children[s.index];
      if (last) {
        if (item.is_map() && value.is_map()) {
          merge_into(item, value);
        } else {
          item = value;
        }
        return;
      }
      node = &item;
    }
  }
}

}  // namespace strider::config
