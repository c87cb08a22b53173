-- SPDX-License-Identifier: BSD-3-Clause
--
-- Wireshark dissector for segnet frames (EtherType 0x88B5). It shows every
-- field of the common header and of each type's body, and checks the CRC32C
-- trailer. It is a viewer: proto_decode() is the authority on what is
-- valid; the dissector only flags what it can see locally (CRC, lengths,
-- reserved bits, a control packet's epoch, 24-bit fields, unknown version
-- or type, a GNT with slot_frames 0).
--
--   tshark -X lua_script:proto/segnet.lua -r capture.pcap -V
--   wireshark -X lua_script:proto/segnet.lua capture.pcap
--
-- or copy it to ~/.local/lib/wireshark/plugins/. doc/protocol.md lists the
-- field abbreviations (segnet.type, segnet.gnt.target, ...).

local segnet = Proto("segnet", "segnet cluster interconnect")

-- Sizes and constants of the wire format, as in proto/proto.h.
local ETHERTYPE = 0x88B5
local HDR_LEN = 32
local CRC_LEN = 4
local ARGS_LEN = 32
local BREQ_SLOT_LEN = 4
local ETH_LEN = 14
local MIN_FRAME = 60
local NODE_SWITCH = 0xFFFE
local NODE_NONE = 0xFFFF

-- Packet types; the value is the on-wire type byte.
local T_BREQ, T_BACK, T_QREQ, T_QACK, T_CFG, T_GNT, T_HELLO = 1, 2, 3, 4, 5, 6, 7
local type_names = {
	[T_BREQ] = "BREQ", [T_BACK] = "BACK", [T_QREQ] = "QREQ", [T_QACK] = "QACK",
	[T_CFG] = "CFG", [T_GNT] = "GNT", [T_HELLO] = "HELLO",
}

-- Fixed body length per type (CFG: the part before its vectors; BREQ: before
-- its payload).
local body_len = {
	[T_BREQ] = BREQ_SLOT_LEN + ARGS_LEN, [T_BACK] = 4, [T_QREQ] = ARGS_LEN, [T_QACK] = 0,
	[T_CFG] = 8, [T_GNT] = 28, [T_HELLO] = 8,
}

-- Common-header flag bits and their short names for the Info column.
local flag_bits = {
	{ 0x0001, "DATA" }, { 0x0002, "ACK" }, { 0x0004, "LAST" },
	{ 0x0008, "RETX" }, { 0x0010, "FORCE_ACK" }, { 0x0020, "NACK" },
	{ 0x0040, "DOWN" }, { 0x0080, "ABANDONED" }, { 0x0100, "NO_VNET" },
	{ 0x0200, "FRESH" }, { 0x0400, "RESTART" }, { 0x0800, "WELCOME" },
	{ 0x1000, "REFUSED" }, { 0x2000, "DUP" },
}

-- Checksum status values, as Wireshark's own dissectors use them.
local crc_status_names = { [0] = "Bad", [1] = "Good", [2] = "Unverified" }

-- Every field in registration order (the order of tshark -G fields);
-- f.<key> names it in the code below.
local f, fields = {}, {}

-- Register a field under a short key.
local function field(key, protofield)
	f[key] = protofield
	fields[#fields + 1] = protofield
end

field("version", ProtoField.uint8("segnet.version", "Version", base.DEC))
field("type", ProtoField.uint8("segnet.type", "Type", base.DEC, type_names))
field("flags", ProtoField.uint16("segnet.flags", "Flags", base.HEX))
field("flag_data", ProtoField.bool("segnet.flags.data", "Data", 16, nil, 0x0001))
field("flag_ack", ProtoField.bool("segnet.flags.ack", "Ack", 16, nil, 0x0002))
field("flag_last", ProtoField.bool("segnet.flags.last", "Last", 16, nil, 0x0004))
field("flag_retx", ProtoField.bool("segnet.flags.retx", "Retransmission", 16, nil, 0x0008))
field("flag_force_ack", ProtoField.bool("segnet.flags.force_ack", "Force ack", 16, nil, 0x0010))
field("flag_nack", ProtoField.bool("segnet.flags.nack", "Nack", 16, nil, 0x0020))
field("flag_down", ProtoField.bool("segnet.flags.down", "Down (target down or restarted)",
	16, nil, 0x0040))
field("flag_abandoned", ProtoField.bool("segnet.flags.abandoned",
	"Abandoned (the sender gave the message up)", 16, nil, 0x0080))
field("flag_no_vnet", ProtoField.bool("segnet.flags.no_vnet",
	"No vnet (the target does not serve the virtual network)", 16, nil, 0x0100))
field("flag_fresh", ProtoField.bool("segnet.flags.fresh",
	"Fresh (the connection knows no epoch yet, or introduces its process: the epoch field holds a boot nonce)",
	16, nil, 0x0200))
field("flag_restart", ProtoField.bool("segnet.flags.restart",
	"Restart (a WELCOME to a FRESH frame of a nonce retired: the connection restarts)",
	16, nil, 0x0400))
field("flag_welcome", ProtoField.bool("segnet.flags.welcome",
	"Welcome (answers a FRESH frame taken, or a frame of another pair of processes: the epoch, two boot nonces)",
	16, nil, 0x0800))
field("flag_refused", ProtoField.bool("segnet.flags.refused",
	"Refused (the endpoint refused the packet: its message comes again under a later number)",
	16, nil, 0x1000))
field("flag_dup", ProtoField.bool("segnet.flags.dup",
	"Duplicate (the data frame answered, packet pkt_num, was a copy of one received)",
	16, nil, 0x2000))
field("flag_undefined", ProtoField.uint16("segnet.flags.undefined", "Undefined flags",
	base.HEX, nil, 0xC000))
field("src_node", ProtoField.uint16("segnet.src_node", "Source node", base.DEC))
field("dst_node", ProtoField.uint16("segnet.dst_node", "Destination node", base.DEC))
field("vnet", ProtoField.uint16("segnet.vnet", "Virtual network", base.DEC))
field("src_ep", ProtoField.uint16("segnet.src_ep", "Source endpoint", base.DEC))
field("dst_ep", ProtoField.uint16("segnet.dst_ep", "Destination endpoint", base.DEC))
field("handler", ProtoField.uint16("segnet.handler", "Handler", base.DEC))
field("pkt_num", ProtoField.uint32("segnet.pkt_num", "Packet number", base.DEC))
field("ack_base", ProtoField.uint32("segnet.ack_base", "Ack base", base.DEC))
field("ack_mask", ProtoField.uint32("segnet.ack_mask", "Ack mask", base.HEX))
field("payload_len", ProtoField.uint16("segnet.payload_len", "Payload length", base.DEC))
field("epoch", ProtoField.uint16("segnet.epoch", "Epoch", base.DEC))
field("nonce", ProtoField.uint16("segnet.nonce", "Boot nonce (FRESH)", base.HEX))
field("welcomed_nonce", ProtoField.uint16("segnet.welcomed_nonce",
	"Boot nonce taken (WELCOME: pkt_num)", base.HEX))
field("sender_nonce", ProtoField.uint16("segnet.sender_nonce",
	"Sender's boot nonce (WELCOME: handler)", base.HEX))
field("resume", ProtoField.uint32("segnet.resume",
	"Refused messages come again from number (REFUSED marker: pkt_num + handler)", base.DEC))
field("down_nonce", ProtoField.uint16("segnet.down_nonce",
	"Boot nonce of the node's process (DOWN notice: handler)", base.HEX))
-- enum proto_down_kind: what a DOWN notice says of the node it names.
local down_kinds = { [0] = "down", [1] = "rejoined", [2] = "not joined" }
field("down_kind", ProtoField.uint16("segnet.down_kind", "Node (DOWN notice)", base.DEC,
	down_kinds))
field("breq_slot", ProtoField.uint32("segnet.breq.slot", "Grant slot", base.DEC))
field("args", ProtoField.bytes("segnet.args", "Arguments"))
field("payload", ProtoField.bytes("segnet.payload", "Payload"))
field("back_slot", ProtoField.uint32("segnet.back.slot", "Slot", base.DEC))
field("cfg_slot", ProtoField.uint32("segnet.cfg.slot", "Slot", base.DEC))
field("cfg_n_nodes", ProtoField.uint16("segnet.cfg.n_nodes", "Nodes", base.DEC))
field("cfg_reserved", ProtoField.uint16("segnet.cfg.reserved", "Reserved", base.HEX))
field("cfg_counts", ProtoField.bytes("segnet.cfg.counts", "Request counts"))
field("cfg_count", ProtoField.uint8("segnet.cfg.count", "Request count", base.DEC))
field("cfg_bulk_en", ProtoField.bytes("segnet.cfg.bulk_en", "Bulk enable vector"))
field("cfg_bulk_node", ProtoField.uint16("segnet.cfg.bulk_node", "Bulk enabled for node",
	base.DEC))
field("cfg_quick_en", ProtoField.bytes("segnet.cfg.quick_en", "Quick enable vector"))
field("cfg_quick_node", ProtoField.uint16("segnet.cfg.quick_node", "Quick enabled for node",
	base.DEC))
field("gnt_slot", ProtoField.uint32("segnet.gnt.slot", "Slot", base.DEC))
field("gnt_target", ProtoField.uint16("segnet.gnt.target", "Target", base.DEC))
field("gnt_node_id", ProtoField.uint16("segnet.gnt.node_id", "Node id", base.DEC))
field("gnt_n_nodes", ProtoField.uint16("segnet.gnt.n_nodes", "Nodes", base.DEC))
field("gnt_gflags", ProtoField.uint16("segnet.gnt.gflags", "Grant flags", base.HEX))
field("gnt_fifo", ProtoField.bool("segnet.gnt.gflags.fifo", "FIFO (unscheduled model)",
	16, nil, 0x0001))
field("gnt_joined", ProtoField.bool("segnet.gnt.gflags.joined", "Joined (answers a HELLO)",
	16, nil, 0x0002))
field("gnt_rejoin", ProtoField.bool("segnet.gnt.gflags.rejoin",
	"Rejoin (the switch does not have the node up: say HELLO)", 16, nil, 0x0004))
field("gnt_undefined", ProtoField.uint16("segnet.gnt.gflags.undefined", "Undefined flags",
	base.HEX, nil, 0xFFF8))
field("gnt_slot_ns", ProtoField.uint32("segnet.gnt.slot_ns", "Slot length (ns)", base.DEC))
field("gnt_timestamp_ns", ProtoField.uint64("segnet.gnt.timestamp_ns", "Switch timestamp (ns)",
	base.DEC))
field("gnt_back_slots", ProtoField.uint16("segnet.gnt.back_slots", "BACK delay (slots)",
	base.DEC))
field("gnt_slot_frames", ProtoField.uint16("segnet.gnt.slot_frames", "BREQs per grant",
	base.DEC))
field("hello_nonce", ProtoField.uint32("segnet.hello.nonce", "Nonce", base.HEX))
field("hello_caps", ProtoField.uint32("segnet.hello.caps", "Capabilities", base.HEX))
field("crc", ProtoField.uint32("segnet.crc", "CRC32C", base.HEX))
field("crc_status", ProtoField.uint8("segnet.crc.status", "CRC32C status", base.DEC,
	crc_status_names))
field("crc_calculated", ProtoField.uint32("segnet.crc.calculated", "Calculated CRC32C",
	base.HEX))
field("padding", ProtoField.bytes("segnet.padding", "Padding"))
field("trailing", ProtoField.bytes("segnet.trailing", "Trailing bytes"))
segnet.fields = fields

local ex = {
	crc_bad = ProtoExpert.new("segnet.crc.bad", "CRC32C mismatch",
				  expert.group.CHECKSUM, expert.severity.ERROR),
	short = ProtoExpert.new("segnet.too_short", "Frame shorter than a segnet header",
				expert.group.MALFORMED, expert.severity.ERROR),
	truncated = ProtoExpert.new("segnet.truncated", "Frame shorter than its length fields say",
				    expert.group.MALFORMED, expert.severity.ERROR),
	trailing = ProtoExpert.new("segnet.trailing.bad",
				   "Bytes after the CRC beyond the padding to 60 bytes",
				   expert.group.MALFORMED, expert.severity.ERROR),
	version = ProtoExpert.new("segnet.version.bad", "Unsupported protocol version",
				  expert.group.PROTOCOL, expert.severity.ERROR),
	type = ProtoExpert.new("segnet.type.bad", "Unknown packet type",
			       expert.group.PROTOCOL, expert.severity.ERROR),
	field = ProtoExpert.new("segnet.field.bad", "Field out of range",
				expert.group.PROTOCOL, expert.severity.ERROR),
	reserved = ProtoExpert.new("segnet.reserved.bad", "Reserved field or unused bits not zero",
				   expert.group.PROTOCOL, expert.severity.ERROR),
}
segnet.experts = { ex.crc_bad, ex.short, ex.truncated, ex.trailing, ex.version,
		   ex.type, ex.field, ex.reserved }

-- CRC32C lookup table for the reflected Castagnoli polynomial.
local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if bit32.band(c, 1) == 1 then
			c = bit32.bxor(bit32.rshift(c, 1), 0x82F63B78)
		else
			c = bit32.rshift(c, 1)
		end
	end
	crc_table[i] = c
end

-- CRC32C of len bytes of tvb from off (check value of "123456789": E3069283).
local function crc32c(tvb, off, len)
	local s = tvb:raw(off, len)
	local crc = 0xFFFFFFFF

	for i = 1, len do
		local idx = bit32.band(bit32.bxor(crc, s:byte(i)), 0xFF)
		crc = bit32.bxor(bit32.rshift(crc, 8), crc_table[idx])
	end
	return bit32.bnot(crc)
end

-- Bytes in one CFG enable vector for n nodes.
local function vec_len(n)
	return math.floor((n + 7) / 8)
end

-- Text for a node id: the switch and "none" have names.
local function node_text(n)
	if n == NODE_SWITCH then
		return "switch"
	elseif n == NODE_NONE then
		return "none"
	end
	return tostring(n)
end

-- Add a node-id field with the name of the special addresses appended.
local function add_node(tree, field, range)
	local item = tree:add(field, range)
	local n = range:uint()

	if n == NODE_SWITCH or n == NODE_NONE then
		item:append_text(" (" .. node_text(n) .. ")")
	end
	return item
end

-- Add a 32-bit field holding a 24-bit number; flag a non-zero top byte.
local function add_u24(tree, field, range)
	local item = tree:add(field, range)

	if range:uint() > 0xFFFFFF then
		item:add_proto_expert_info(ex.field, "Wider than 24 bits")
	end
	return item
end

-- Add a reserved field; flag it when it is not zero.
local function add_reserved(tree, field, range)
	local item = tree:add(field, range)

	if range:uint() ~= 0 then
		item:add_proto_expert_info(ex.reserved)
	end
	return item
end

-- Names of the flags set in v, for the Info column.
local function flag_text(v)
	local names = {}

	for _, b in ipairs(flag_bits) do
		if bit32.band(v, b[1]) ~= 0 then
			names[#names + 1] = b[2]
		end
	end
	return table.concat(names, ",")
end

-- The common header; returns a table of the fields the body needs.
local function dissect_header(tvb, tree)
	local h = {
		version = tvb(0, 1):uint(), type = tvb(1, 1):uint(),
		flags = tvb(2, 2):uint(), src = tvb(4, 2):uint(), dst = tvb(6, 2):uint(),
		vnet = tvb(8, 2):uint(), src_ep = tvb(10, 2):uint(),
		dst_ep = tvb(12, 2):uint(), handler = tvb(14, 2):uint(),
		pkt_num = tvb(16, 4):uint(), payload_len = tvb(28, 2):uint(),
	}
	local ht = tree:add(segnet, tvb(0, HDR_LEN), "Header")
	local item = ht:add(f.version, tvb(0, 1))

	if h.version ~= 1 then
		item:add_proto_expert_info(ex.version)
	end
	item = ht:add(f.type, tvb(1, 1))
	if not type_names[h.type] then
		item:add_proto_expert_info(ex.type)
	end
	local ft = ht:add(f.flags, tvb(2, 2))
	ft:append_text(" [" .. flag_text(h.flags) .. "]")
	ft:add(f.flag_data, tvb(2, 2))
	ft:add(f.flag_ack, tvb(2, 2))
	ft:add(f.flag_last, tvb(2, 2))
	ft:add(f.flag_retx, tvb(2, 2))
	ft:add(f.flag_force_ack, tvb(2, 2))
	ft:add(f.flag_nack, tvb(2, 2))
	ft:add(f.flag_down, tvb(2, 2))
	ft:add(f.flag_abandoned, tvb(2, 2))
	ft:add(f.flag_no_vnet, tvb(2, 2))
	ft:add(f.flag_fresh, tvb(2, 2))
	ft:add(f.flag_restart, tvb(2, 2))
	ft:add(f.flag_welcome, tvb(2, 2))
	ft:add(f.flag_refused, tvb(2, 2))
	ft:add(f.flag_dup, tvb(2, 2))
	ft:add(f.flag_undefined, tvb(2, 2))
	add_node(ht, f.src_node, tvb(4, 2))
	add_node(ht, f.dst_node, tvb(6, 2))
	ht:add(f.vnet, tvb(8, 2))
	ht:add(f.src_ep, tvb(10, 2))
	ht:add(f.dst_ep, tvb(12, 2))
	ht:add(f.handler, tvb(14, 2))
	add_u24(ht, f.pkt_num, tvb(16, 4))
	if bit32.band(h.flags, 0x0800) ~= 0 then
		ht:add(f.welcomed_nonce, tvb(18, 2))
		ht:add(f.sender_nonce, tvb(14, 2))
	end
	if bit32.band(h.flags, 0x0040) ~= 0 then
		ht:add(f.down_nonce, tvb(14, 2))
	end
	if h.type == T_QREQ and bit32.band(h.flags, 0x1000) ~= 0 then
		ht:add(f.resume, tvb(14, 2), bit32.band(tvb(17, 3):uint() + h.handler, 0xFFFFFF))
			:set_generated()
	end
	add_u24(ht, f.ack_base, tvb(20, 4))
	ht:add(f.ack_mask, tvb(24, 4))
	ht:add(f.payload_len, tvb(28, 2))
	-- The connection's epoch, or on a FRESH frame its sender's boot nonce,
	-- or on a DOWN notice what became of the node; CFG, GNT and HELLO
	-- belong to none and keep it zero.
	if h.type == T_CFG or h.type == T_GNT or h.type == T_HELLO then
		add_reserved(ht, f.epoch, tvb(30, 2))
	elseif bit32.band(h.flags, 0x0040) ~= 0 then
		local item = ht:add(f.down_kind, tvb(30, 2))
		if tvb(30, 2):uint() > 2 then
			item:add_proto_expert_info(ex.reserved)
		end
	elseif bit32.band(h.flags, 0x0200) ~= 0 then
		ht:add(f.nonce, tvb(30, 2))
	else
		ht:add(f.epoch, tvb(30, 2))
	end
	return h
end

-- One CFG enable vector: the bytes, then one generated item per enabled node.
local function dissect_vec(tree, tvb, off, n, f_vec, f_node)
	local vl = vec_len(n)
	local vt = tree:add(f_vec, tvb(off, vl))
	local count = 0

	for i = 0, vl * 8 - 1 do
		local byte = tvb(off + math.floor(i / 8), 1)
		if bit32.band(bit32.rshift(byte:uint(), i % 8), 1) == 1 then
			if i >= n then
				vt:add_proto_expert_info(ex.reserved, "Bit set past the last node")
			else
				vt:add(f_node, byte, i):set_generated()
				count = count + 1
			end
		end
	end
	vt:append_text(string.format(" (%d of %d nodes)", count, n))
	return off + vl
end

-- CFG body after its fixed part: counts, then the two enable vectors.
local function dissect_cfg_vectors(tvb, tree, off, n)
	local ct = tree:add(f.cfg_counts, tvb(off, n))

	for i = 0, n - 1 do
		local item = ct:add(f.cfg_count, tvb(off + i, 1))
		item:prepend_text(string.format("Node %d: ", i))
	end
	off = off + n
	off = dissect_vec(tree, tvb, off, n, f.cfg_bulk_en, f.cfg_bulk_node)
	return dissect_vec(tree, tvb, off, n, f.cfg_quick_en, f.cfg_quick_node)
end

-- GNT body; returns the Info text.
local function dissect_gnt(tvb, bt, b)
	bt:add(f.gnt_slot, tvb(b, 4))
	add_node(bt, f.gnt_target, tvb(b + 4, 2))
	bt:add(f.gnt_node_id, tvb(b + 6, 2))
	bt:add(f.gnt_n_nodes, tvb(b + 8, 2))
	local gt = bt:add(f.gnt_gflags, tvb(b + 10, 2))
	gt:add(f.gnt_fifo, tvb(b + 10, 2))
	gt:add(f.gnt_joined, tvb(b + 10, 2))
	gt:add(f.gnt_rejoin, tvb(b + 10, 2))
	gt:add(f.gnt_undefined, tvb(b + 10, 2))
	bt:add(f.gnt_slot_ns, tvb(b + 12, 4))
	bt:add(f.gnt_timestamp_ns, tvb(b + 16, 8))
	bt:add(f.gnt_back_slots, tvb(b + 24, 2))
	local item = bt:add(f.gnt_slot_frames, tvb(b + 26, 2))
	if tvb(b + 26, 2):uint() == 0 then
		item:add_proto_expert_info(ex.field, "A grant allows at least one BREQ")
	end
	return string.format(" slot %u target %s", tvb(b, 4):uint(),
			     node_text(tvb(b + 4, 2):uint()))
end

-- The type-specific body from offset b; returns its end and the Info text.
local function dissect_body(tvb, tree, h, b, n_nodes)
	local t = h.type

	if t == T_QACK then
		return b, ""
	end
	local bt = tree:add(segnet, tvb(b, body_len[t]), type_names[t] .. " body")
	if t == T_BREQ then
		bt:add(f.breq_slot, tvb(b, BREQ_SLOT_LEN))
		bt:add(f.args, tvb(b + BREQ_SLOT_LEN, ARGS_LEN))
		if h.payload_len > 0 then
			tree:add(f.payload, tvb(b + body_len[t], h.payload_len))
		end
		return b + body_len[t] + h.payload_len,
		       string.format(" slot %u", tvb(b, BREQ_SLOT_LEN):uint())
	elseif t == T_QREQ then
		bt:add(f.args, tvb(b, ARGS_LEN))
		return b + ARGS_LEN, ""
	elseif t == T_BACK then
		bt:add(f.back_slot, tvb(b, 4))
		return b + 4, string.format(" slot %u", tvb(b, 4):uint())
	elseif t == T_CFG then
		bt:add(f.cfg_slot, tvb(b, 4))
		bt:add(f.cfg_n_nodes, tvb(b + 4, 2))
		add_reserved(bt, f.cfg_reserved, tvb(b + 6, 2))
		bt:set_len(8 + n_nodes + 2 * vec_len(n_nodes))
		return dissect_cfg_vectors(tvb, bt, b + 8, n_nodes),
		       string.format(" slot %u nodes %u", tvb(b, 4):uint(), n_nodes)
	elseif t == T_GNT then
		return b + 28, dissect_gnt(tvb, bt, b)
	end
	bt:add(f.hello_nonce, tvb(b, 4))
	add_reserved(bt, f.hello_caps, tvb(b + 4, 4))
	return b + 8, string.format(" nonce 0x%08x", tvb(b, 4):uint())
end

-- The CRC trailer at off, checked against the header, body and payload.
local function dissect_crc(tvb, tree, off)
	local wire = tvb(off, CRC_LEN):uint()
	local calc = crc32c(tvb, 0, off)
	local item = tree:add(f.crc, tvb(off, CRC_LEN))

	tree:add(f.crc_calculated, tvb(off, CRC_LEN), calc):set_generated()
	if wire == calc then
		tree:add(f.crc_status, tvb(off, CRC_LEN), 1):set_generated()
		item:append_text(" [correct]")
		return true
	end
	tree:add(f.crc_status, tvb(off, CRC_LEN), 0):set_generated()
	item:append_text(string.format(" [incorrect, should be 0x%08x]", calc))
	item:add_proto_expert_info(ex.crc_bad)
	return false
end

-- Bytes after the CRC: padding up to the 60-byte minimum, or trailing bytes.
local function dissect_tail(tvb, tree, off)
	local rest = tvb:len() - off

	if rest <= 0 then
		return
	end
	-- The Ethernet minimum is counted from the frame start, before segnet.
	if ETH_LEN + tvb:len() <= MIN_FRAME then
		tree:add(f.padding, tvb(off, rest))
	else
		tree:add(f.trailing, tvb(off, rest)):add_proto_expert_info(ex.trailing)
	end
end

-- Length of the whole segnet frame, or nil when the fixed part is missing.
local function needed_len(tvb, h)
	local fixed = HDR_LEN + body_len[h.type]
	local n_nodes = 0

	if tvb:len() < fixed + CRC_LEN then
		return nil, 0
	end
	if h.type == T_CFG then
		n_nodes = tvb(HDR_LEN + 4, 2):uint()
		fixed = fixed + n_nodes + 2 * vec_len(n_nodes)
	elseif h.type == T_BREQ then
		fixed = fixed + h.payload_len
	end
	return fixed + CRC_LEN, n_nodes
end

-- Dissect one frame from the segnet header on; consumes the whole rest.
function segnet.dissector(tvb, pinfo, root)
	local len = tvb:len()

	pinfo.cols.protocol = "segnet"
	local tree = root:add(segnet, tvb())
	if len < HDR_LEN + CRC_LEN then
		tree:add_proto_expert_info(ex.short)
		pinfo.cols.info:set("segnet: too short")
		return len
	end
	local h = dissect_header(tvb, tree)
	local name = type_names[h.type] or string.format("type %u", h.type)
	local info = string.format("%s %s -> %s", name, node_text(h.src), node_text(h.dst))
	if h.flags ~= 0 then
		info = info .. " [" .. flag_text(h.flags) .. "]"
	end
	if bit32.band(h.flags, 0x0001) ~= 0 then
		info = info .. string.format(" vnet %u ep %u -> %u handler %u pkt %u",
					     h.vnet, h.src_ep, h.dst_ep, h.handler, h.pkt_num)
	end
	tree:append_text(", " .. name)
	pinfo.cols.info:set(info)
	if not type_names[h.type] then
		return len
	end
	local need, n_nodes = needed_len(tvb, h)
	if not need or len < need then
		tree:add_proto_expert_info(ex.truncated)
		pinfo.cols.info:append(" [truncated]")
		return len
	end
	local crc_off, body_info = dissect_body(tvb, tree, h, HDR_LEN, n_nodes)
	pinfo.cols.info:append(body_info)
	if h.type == T_BREQ then
		pinfo.cols.info:append(string.format(" len %u", h.payload_len))
	end
	if not dissect_crc(tvb, tree, crc_off) then
		pinfo.cols.info:append(" [bad CRC]")
	end
	dissect_tail(tvb, tree, crc_off + CRC_LEN)
	return len
end

DissectorTable.get("ethertype"):add(ETHERTYPE, segnet)
