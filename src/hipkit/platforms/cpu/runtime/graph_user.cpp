// User objects (hipUserObjectCreate, hipGraphRetainUserObject...): a
// destructor and its data, run when the last reference goes.  A graph holds
// references of its own; clones, child graph nodes and execs copy them, and
// destroying a graph or an exec (after its launches, for an exec) drops them.
#include "graph.h"

struct hkrt_user_object {};

namespace hk {

struct UserObject : hkrt_user_object {
  unsigned refs = 0;  // under object_mutex
  void* data = nullptr;
  void (*destroy)(void*) = nullptr;
};

namespace {

Mutex object_mutex;
std::unordered_set<const hkrt_user_object*> objects;  // the live ones

// Drops `count` references (under object_mutex); the object, if its last
// went, is returned for the caller to destroy outside the lock.
UserObject* drop_locked(UserObject* o, unsigned count) {
  o->refs -= count;
  if (o->refs != 0) return nullptr;
  objects.erase(o);
  return o;
}

void destroy(UserObject* o) {
  if (o == nullptr) return;
  o->destroy(o->data);
  delete o;
}

int check_object(hkrt_user_object* object, unsigned count) {
  if (object == nullptr || objects.count(object) == 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "%p is no user object", static_cast<void*>(object));
  if (count == 0) return fail(HKRT_ERROR_INVALID_VALUE, "user object: a count of 0");
  return HKRT_SUCCESS;
}

}  // namespace

Graph::~Graph() { objects_release(this->objects); }

void objects_copy(std::unordered_map<UserObject*, unsigned>& to, const Graph& graph) {
  Lock lock(object_mutex);
  for (const auto& held : graph.objects) {
    held.first->refs += held.second;
    to[held.first] += held.second;
  }
}

void objects_release(std::unordered_map<UserObject*, unsigned>& refs) {
  if (refs.empty()) return;
  std::vector<UserObject*> gone;
  {
    Lock lock(object_mutex);
    for (const auto& held : refs)
      if (UserObject* o = drop_locked(held.first, held.second)) gone.push_back(o);
  }
  refs.clear();
  for (UserObject* o : gone) destroy(o);
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_user_object_create(hkrt_user_object** out, void* data, void (*fn)(void*),
                            unsigned int count, unsigned int flags) {
  if (out == nullptr || fn == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "user object: NULL output or destructor");
  if (count == 0) return fail(HKRT_ERROR_INVALID_VALUE, "user object: an initial count of 0");
  if (flags != 1)  // hipUserObjectNoDestructorSync, the one flag there is and must be
    return fail(HKRT_ERROR_INVALID_VALUE, "user object: flags must be hipUserObjectNoDestructorSync");
  auto* o = new UserObject;
  o->refs = count, o->data = data, o->destroy = fn;
  Lock lock(object_mutex);
  objects.insert(o);
  *out = o;
  return HKRT_SUCCESS;
}

int hkrt_user_object_retain(hkrt_user_object* object, unsigned int count, int release) {
  UserObject* gone = nullptr;
  {
    Lock lock(object_mutex);
    if (int error = check_object(object, count)) return error;
    auto* o = static_cast<UserObject*>(object);
    if (!release) {
      o->refs += count;
      return HKRT_SUCCESS;
    }
    if (count > o->refs)
      return fail(HKRT_ERROR_INVALID_VALUE, "user object: releasing %u of its %u references",
                  count, o->refs);
    gone = drop_locked(o, count);
  }
  destroy(gone);
  return HKRT_SUCCESS;
}

int hkrt_graph_user_object(hkrt_graph* graph, hkrt_user_object* object, unsigned int count,
                           unsigned int flags, int release) {
  {
    auto lock = graph_lock();
    if (graph == nullptr || !graph_valid_locked(graph))
      return fail(HKRT_ERROR_INVALID_VALUE, "%p is no graph", static_cast<void*>(graph));
  }
  auto& held = static_cast<Graph*>(graph)->objects;
  UserObject* gone = nullptr;
  {
    Lock lock(object_mutex);
    if (int error = check_object(object, count)) return error;
    auto* o = static_cast<UserObject*>(object);
    if (!release) {
      if (flags > 1)  // hipGraphUserObjectMove
        return fail(HKRT_ERROR_INVALID_VALUE, "retain user object: unknown flags 0x%x", flags);
      if (flags == 0) o->refs += count;  // else the caller's references move to the graph
      held[o] += count;
      return HKRT_SUCCESS;
    }
    auto it = held.find(o);
    if (it == held.end() || it->second < count)
      return fail(HKRT_ERROR_INVALID_VALUE, "release user object: the graph holds %u references",
                  it == held.end() ? 0u : it->second);
    if ((it->second -= count) == 0) held.erase(it);
    gone = drop_locked(o, count);
  }
  destroy(gone);
  return HKRT_SUCCESS;
}

}  // extern "C"
