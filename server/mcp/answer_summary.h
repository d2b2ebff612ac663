// The text block of an MCP tools/call answer: a compact summary for a
// person or an assistant, while structuredContent (answer_view.h) carries the
// whole answer, as the MCP spec allows. A few lines per answer: the result
// (a plan per line for recommend: mesh, cp_comm_type when CP > 1, tokens/s/GPU
// with its uncertainty, MFU, peak memory of capacity, and its first reasons),
// then errors, and a last line saying that structuredContent has the rest.
// Every RPC has one (the build fails otherwise: the table in the .cc is the
// RPC table of server/api/api_methods.h).
#ifndef PARPLAN_SERVER_MCP_ANSWER_SUMMARY_H_
#define PARPLAN_SERVER_MCP_ANSWER_SUMMARY_H_

#include <string>

#include "google/protobuf/message.h"

namespace parplan {
namespace mcp {

// The summary of `response`, the answer of RPC `rpc` ("" for an unknown RPC).
std::string AnswerSummary(const std::string& rpc, const google::protobuf::Message& response);

}  // namespace mcp
}  // namespace parplan

#endif  // PARPLAN_SERVER_MCP_ANSWER_SUMMARY_H_
