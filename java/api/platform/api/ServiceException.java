package platform.api;

/**
 * The method's chosen answer to a call it refuses: the gateway answers METHOD_FAILED with this status
 * (4xx or 5xx) and the message as the problem's detail. Any other exception is a fault: logged with its
 * stack, answered 500.
 */
public class ServiceException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int status;

  public ServiceException(int status, String message) {
    super(message);
    if (status < 400 || status > 599) throw new IllegalArgumentException("status " + status + " is not 4xx or 5xx");
    this.status = status;
  }

  public int getStatus() { return status; }
}
