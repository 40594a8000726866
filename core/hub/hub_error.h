#pragma once
// What fetching from the Hub can fail with: one line each (base/user_error.h), which the
// CLI prints before exiting 2 and the app shows in place.
#include "base/user_error.h"

namespace attn {

struct HubError : UserError {
    using UserError::UserError;
};

// The user's Cancel (or a closing window): what arrived stays beside its blob's name and
// the next fetch goes on from there.
struct HubCancelled : HubError {
    using HubError::HubError;
};

}  // namespace attn
