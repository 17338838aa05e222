#include "ops/framework/run_context.h"

#include "common/error.h"

namespace flowlens {

std::shared_ptr<ResourceBase> ResourceManager::lookup_or_create_of(const std::string& container,
                                                                   const std::string& name, const std::type_info& type,
                                                                   const Factory& make) {
  std::lock_guard lock(mu_);
  auto it = resources_.find({container, name});
  if (it != resources_.end()) {
    // TensorFlow's LookupOrCreate refuses a resource of another type the same way.
    const ResourceBase& existing = *it->second;
    if (typeid(existing) != type)
      throw Error("resource " + container + "/" + name + " exists as a " + existing.kind() +
                  ", and this op expects another kind");
    return it->second;
  }
  std::shared_ptr<ResourceBase> made = make();
  if (!made) throw Error("resource " + container + "/" + name + " could not be created");
  resources_.emplace(std::make_pair(container, name), made);
  return made;
}

std::shared_ptr<ResourceBase> ResourceManager::lookup(const std::string& container, const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = resources_.find({container, name});
  return it == resources_.end() ? nullptr : it->second;
}

bool ResourceManager::erase(const std::string& container, const std::string& name) {
  std::lock_guard lock(mu_);
  return resources_.erase({container, name}) > 0;
}

std::vector<std::pair<std::string, std::shared_ptr<ResourceBase>>> ResourceManager::list() const {
  std::lock_guard lock(mu_);
  std::vector<std::pair<std::string, std::shared_ptr<ResourceBase>>> out;
  for (const auto& [key, resource] : resources_) out.emplace_back(key.first + "/" + key.second, resource);
  return out;
}

}  // namespace flowlens
