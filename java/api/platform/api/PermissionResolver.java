package platform.api;

import java.util.List;

/**
 * Decides whether a call is privileged, from X-PLATFORM-Privilege-Names and the rest of its context. A bean
 * named {@code permissionResolver} replaces the default, which grants the names in microservice.json's
 * permissions.privilegedNames.
 */
public interface PermissionResolver {
  boolean isPrivileged(List<String> privilegeNames, CallContext context);
}
