// The elements of one ADD_ELEMS/DEL_ELEMS op, kept in their wire form (docs/wire-format.md,
// "Element") instead of one C++ object each.
//
// Why: a full sync at 44,000 Services carries ~740,000 elements. As objects (three byte vectors
// and a verdict string each: ~128 bytes plus one or two heap blocks) they cost ~140 MB of native
// memory, held while the netlink batch is built next to them. Their wire bytes are ~34 bytes an
// element and already validated field by field, so the list refers to them where they are (exactly
// the op's element section of the transaction buffer) with the count, and readers walk it one
// element at a time, getting views into those bytes: no allocation per element, and no copy.
//
// A decoded list borrows the buffer it was decoded from (the caller keeps it alive: see
// Transaction); a list built in code (Append: fuzz seeds, tests) owns its bytes. Only Decode() and
// Append() fill a list and both check every element with the decoder's own reader, so a list holds
// well-formed elements when filled; the cursor checks them again as it reads (it stops at anything
// malformed rather than trust the bytes, which a borrowed buffer's owner could have changed).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace kpn {

class WireReader;
struct Element;

struct ByteView {
  const uint8_t* data = nullptr;
  size_t size = 0;
  bool empty() const { return size == 0; }
};

enum class DataKind : uint8_t { kNone = 0, kVerdict = 1, kData = 2 };

// One element as read from a list: views into the list's bytes, valid while the list lives.
struct ElementView {
  ByteView key, keyEnd;
  uint32_t flags = 0;
  DataKind dataKind = DataKind::kNone;
  int32_t verdictCode = 0;
  std::string_view verdictChain;  // non-empty exactly for jump/goto
  ByteView data;
  uint64_t timeoutMs = 0;
};

// Where an element is in its list: its index and the offset of its first byte.
struct ElementPos {
  size_t index = 0;
  size_t offset = 0;
};

class ElementCursor {
 public:
  ElementCursor(const uint8_t* data, size_t len, size_t count, ElementPos from)
      : data_(data), len_(len), count_(count), pos_(from) {}
  // Reads the element at pos() and moves past it; false at the end of the list.
  bool Next(ElementView* e);
  // Skips n elements (fewer at the end of the list); false if it could not skip them all.
  bool Skip(size_t n);
  ElementPos pos() const { return pos_; }

 private:
  const uint8_t* data_;
  size_t len_, count_;
  ElementPos pos_;
};

class ElementList {
 public:
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  size_t wireBytes() const { return borrowed_ ? borrowedLen_ : owned_.size(); }

  // Reads `count` elements at r's position, each checked as the decoder checks it (an error
  // names elements[i] and its byte offset), and refers to their bytes in r's buffer (an empty list
  // borrows them; a list with elements already copies them after its own). False with r.error set.
  bool Decode(WireReader& r, uint32_t count);
  // Appends one element given as plain data (fuzz seeds, tests); false, appending nothing, if
  // the decoder would refuse it.
  bool Append(const Element& e);

  ElementCursor Walk(ElementPos from = {}) const {
    return ElementCursor(borrowed_ ? borrowed_ : owned_.data(), wireBytes(), count_, from);
  }

 private:
  // Turns a borrowed list into an owned copy (before bytes are added to it).
  void Own();

  const uint8_t* borrowed_ = nullptr;
  size_t borrowedLen_ = 0;
  std::vector<uint8_t> owned_;
  size_t count_ = 0;
};

}  // namespace kpn
