// SweepFingerprint: what makes two sweep rows the same experiment. A sweep's identity is the
// program version, the base run file's content (SHA-256), the `set:` overrides, the varied keys
// and the points (their `--set` lists); a row's fingerprint is KEY-POINT: KEY (12 hex digits) over
// the version, base content and `set:`, POINT (12 hex digits) over KEY and the point's own
// overrides. `--resume` reruns a row whose fingerprint differs from its point's; `sweep merge`
// refuses rows of different KEYs and shard directories whose sweep.json (this identity, written
// by every `strider sweep`) differs, naming the first difference.
#pragma once

#include <string>
#include <vector>

#include "tb/sweep_spec.h"

namespace strider {

struct SweepIdentity {
  std::string version;
  std::string base, base_sha256;
  std::vector<std::string> set;
  std::vector<std::string> columns;
  size_t points = 0;
  std::string points_sha256;  // over every point's `--set` list, in id order
  std::string key;            // 12 hex digits over version, base content and set

  static SweepIdentity of(const SweepSpec& spec);
  // Reads a sweep.json. Throws std::runtime_error naming the file.
  static SweepIdentity read(const std::string& path);
  std::string json() const;
  // The fingerprint of one point's row.
  std::string fingerprint(const SweepPoint& p) const;
  // "" when both are the same sweep, else the first difference in words, e.g. "the base run
  // differs (/a/r.yaml sha256 1234abcd... vs /b/r.yaml sha256 ...)".
  std::string difference(const SweepIdentity& other) const;
};

// The KEY part of a row fingerprint ("" when it has none).
std::string fingerprint_key(const std::string& fingerprint);

}  // namespace strider
