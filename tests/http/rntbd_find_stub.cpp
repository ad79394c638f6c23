// TEMPORARY (deleted before merge): Tokens::Find until the RNTBD codec (emulator/rntbd/message.cpp)
// lands, so the Direct bridge's tests link on this branch.
#include "rntbd/message.h"

namespace cosmos::rntbd {

const Token* Tokens::Find(uint16_t id) const {
  const Token* found = nullptr;
  for (const auto& t : list)
    if (t.id == id) found = &t;
  return found;
}

}  // namespace cosmos::rntbd
