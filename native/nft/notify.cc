#include "nft/notify.h"

#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include "netlink/attr.h"

namespace kpn {
namespace nft {

namespace {

// Every nftables object message keeps its table name in attribute 1 (NFTA_*_TABLE). Where the
// chain/set/object name lives differs: chains have their handle at 2 and name at 3.
struct TypeInfo {
  ChangeOp op;
  ChangeKind kind;
  uint16_t nameAttr;  // 0: none (tables)
};

// Message types newer than this userspace header (linux 6.3+): "destroy" is a delete that does
// not fail on a missing object. The kernel announces it as the matching DEL* today; these are
// here so a kernel that announces it as such is still understood.
constexpr uint16_t kMsgDestroyTable = 26, kMsgDestroyFlowtable = 32;

bool LookUp(uint16_t msg, TypeInfo* out) {
  switch (msg) {
    case NFT_MSG_NEWTABLE: *out = {ChangeOp::kAdd, ChangeKind::kTable, 0}; return true;
    case NFT_MSG_DELTABLE: *out = {ChangeOp::kDelete, ChangeKind::kTable, 0}; return true;
    case NFT_MSG_NEWCHAIN: *out = {ChangeOp::kAdd, ChangeKind::kChain, NFTA_CHAIN_NAME}; return true;
    case NFT_MSG_DELCHAIN: *out = {ChangeOp::kDelete, ChangeKind::kChain, NFTA_CHAIN_NAME}; return true;
    case NFT_MSG_NEWRULE: *out = {ChangeOp::kAdd, ChangeKind::kRule, NFTA_RULE_CHAIN}; return true;
    case NFT_MSG_DELRULE: *out = {ChangeOp::kDelete, ChangeKind::kRule, NFTA_RULE_CHAIN}; return true;
    case NFT_MSG_NEWSET: *out = {ChangeOp::kAdd, ChangeKind::kSet, NFTA_SET_NAME}; return true;
    case NFT_MSG_DELSET: *out = {ChangeOp::kDelete, ChangeKind::kSet, NFTA_SET_NAME}; return true;
    case NFT_MSG_NEWSETELEM: *out = {ChangeOp::kAdd, ChangeKind::kElement, NFTA_SET_ELEM_LIST_SET}; return true;
    case NFT_MSG_DELSETELEM: *out = {ChangeOp::kDelete, ChangeKind::kElement, NFTA_SET_ELEM_LIST_SET}; return true;
    case NFT_MSG_NEWOBJ: *out = {ChangeOp::kAdd, ChangeKind::kObj, NFTA_OBJ_NAME}; return true;
    case NFT_MSG_DELOBJ: *out = {ChangeOp::kDelete, ChangeKind::kObj, NFTA_OBJ_NAME}; return true;
    case NFT_MSG_NEWFLOWTABLE: *out = {ChangeOp::kAdd, ChangeKind::kFlowtable, NFTA_FLOWTABLE_NAME}; return true;
    case NFT_MSG_DELFLOWTABLE: *out = {ChangeOp::kDelete, ChangeKind::kFlowtable, NFTA_FLOWTABLE_NAME}; return true;
    default: break;
  }
  if (msg >= kMsgDestroyTable && msg <= kMsgDestroyFlowtable) {
    static const TypeInfo kDestroy[] = {
      {ChangeOp::kDelete, ChangeKind::kTable, 0},
      {ChangeOp::kDelete, ChangeKind::kChain, NFTA_CHAIN_NAME},
      {ChangeOp::kDelete, ChangeKind::kRule, NFTA_RULE_CHAIN},
      {ChangeOp::kDelete, ChangeKind::kSet, NFTA_SET_NAME},
      {ChangeOp::kDelete, ChangeKind::kElement, NFTA_SET_ELEM_LIST_SET},
      {ChangeOp::kDelete, ChangeKind::kObj, NFTA_OBJ_NAME},
      {ChangeOp::kDelete, ChangeKind::kFlowtable, NFTA_FLOWTABLE_NAME},
    };
    *out = kDestroy[msg - kMsgDestroyTable];
    return true;
  }
  return false;
}

constexpr uint16_t kMaxAttr = 16;  // above every attribute read here

// The number of NFTA_LIST_ELEM entries in an element list (at least 1: the message is a change).
uint32_t CountElements(const AttrView& list) {
  uint32_t n = 0;
  bool ok = ForEachAttr(list.data, list.len, [&](uint16_t type, AttrView) {
    if (type == NFTA_LIST_ELEM) n++;
  });
  return ok && n > 0 ? n : 1;
}

void ParseGen(const uint8_t* attrs, size_t len, NotifyMsg* m) {
  AttrView tb[kMaxAttr + 1];
  m->type = NotifyMsg::Type::kNewGen;
  if (!ParseAttrs(attrs, len, tb, kMaxAttr)) return;  // still the end of the commit
  if (tb[NFTA_GEN_ID].len >= 4) { m->hasGenId = true; m->genId = AttrBe32(tb[NFTA_GEN_ID]); }
  if (tb[NFTA_GEN_PROC_PID].len >= 4) { m->hasPid = true; m->pid = AttrBe32(tb[NFTA_GEN_PROC_PID]); }
  m->comm = AttrStr(tb[NFTA_GEN_PROC_NAME]);
}

void ParseChange(uint16_t msg, const uint8_t* attrs, size_t len, NotifyMsg* m) {
  m->type = NotifyMsg::Type::kChange;
  m->change.msgType = msg;
  TypeInfo info;
  AttrView tb[kMaxAttr + 1];
  if (!LookUp(msg, &info) || !ParseAttrs(attrs, len, tb, kMaxAttr) || !tb[1].present()) return;  // kUnknown
  m->change.op = info.op;
  m->change.kind = info.kind;
  m->change.table = AttrStr(tb[1]);
  if (info.nameAttr != 0) m->change.name = AttrStr(tb[info.nameAttr]);
  if (info.kind == ChangeKind::kElement && tb[NFTA_SET_ELEM_LIST_ELEMENTS].present()) {
    m->change.count = CountElements(tb[NFTA_SET_ELEM_LIST_ELEMENTS]);
  }
}

}  // namespace

bool ParseNotifyDatagram(const uint8_t* data, size_t len, std::vector<NotifyMsg>* out) {
  return ForEachMsg(data, len, [&](const nlmsghdr& h, const uint8_t* payload, size_t n) {
    NotifyMsg m;
    m.portId = h.nlmsg_pid;
    bool nftables = h.nlmsg_type >= NLMSG_MIN_TYPE && (h.nlmsg_type >> 8) == NFNL_SUBSYS_NFTABLES;
    if (nftables) {
      uint16_t msg = h.nlmsg_type & 0xff;
      if (n < sizeof(nfgenmsg)) {
        m.type = NotifyMsg::Type::kChange;  // too short to say what changed: unknown
        m.change.msgType = msg;
      } else {
        m.change.family = payload[0];
        const uint8_t* attrs = payload + NLMSG_ALIGN(sizeof(nfgenmsg));
        size_t attrLen = n - NLMSG_ALIGN(sizeof(nfgenmsg));
        if (msg == NFT_MSG_NEWGEN) ParseGen(attrs, attrLen, &m);
        else ParseChange(msg, attrs, attrLen, &m);
      }
    }
    out->push_back(std::move(m));
    return true;
  });
}

const char* ChangeOpName(ChangeOp op) {
  switch (op) {
    case ChangeOp::kAdd: return "add";
    case ChangeOp::kDelete: return "delete";
    default: return "unknown";
  }
}

const char* ChangeKindName(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kTable: return "table";
    case ChangeKind::kChain: return "chain";
    case ChangeKind::kRule: return "rule";
    case ChangeKind::kSet: return "set";
    case ChangeKind::kElement: return "element";
    case ChangeKind::kObj: return "obj";
    case ChangeKind::kFlowtable: return "flowtable";
    default: return "unknown";
  }
}

}  // namespace nft
}  // namespace kpn
