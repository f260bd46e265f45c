package platform.host;

import java.io.File;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.support.GenericXmlApplicationContext;
import platform.api.PermissionResolver;
import platform.api.Privileged;

/**
 * A Java microservice loaded: its jar and lib/ in a class loader of their own (the platform's Spring,
 * serializers and API below it, as a servlet container provides the servlet API), its application
 * context started, and the services SPEC exposes found in it: beans of the package's own classes,
 * remotely enabled by platformRegularExpressionToRemotelyEnabled, their public methods by name.
 */
final class Microservice {
  static final String ENABLED_LIST = "platformRegularExpressionToRemotelyEnabled";
  static final String RESOLVER = "permissionResolver";

  final Config config;
  final ClassLoader loader;
  final ConfigurableApplicationContext context;
  /** Every service bean, remotely enabled or not (a call to one that is not gets UNKNOWN_SERVICE). */
  final Map<String, Service> services = new LinkedHashMap<>();
  final Serializers serializers;
  final PermissionResolver resolver;

  static final class Service {
    final String name;
    final Object bean;
    final boolean remotelyEnabled;
    final Map<String, Method> methods = new LinkedHashMap<>();

    Service(String name, Object bean, boolean remotelyEnabled) {
      this.name = name;
      this.bean = bean;
      this.remotelyEnabled = remotelyEnabled;
    }
  }

  Microservice(File dir) throws Exception {
    config = new Config(dir);
    File jar = new File(dir, config.jar);
    if (!jar.isFile()) throw new IllegalStateException(config.jar + ", the jar named in microservice.json, is not in " + dir);
    List<URL> urls = new ArrayList<>();
    urls.add(jar.toURI().toURL());
    File[] libs = new File(dir, "lib").listFiles((d, n) -> n.endsWith(".jar"));
    if (libs != null) {
      Arrays.sort(libs);
      for (File l : libs) urls.add(l.toURI().toURL());
    }
    loader = new URLClassLoader(urls.toArray(new URL[0]), Microservice.class.getClassLoader());
    Thread.currentThread().setContextClassLoader(loader);
    context = startContext();
    List<Pattern> enabled = new ArrayList<>();
    for (String p : remotelyEnabledList()) enabled.add(Pattern.compile(p));
    for (String beanName : context.getBeanFactory().getBeanDefinitionNames()) {
      if (beanName.equals(ENABLED_LIST) || beanName.equals(RESOLVER) || Serializers.BEANS.contains(beanName)) continue;
      Class<?> type = context.getType(beanName);
      // Beans of the platform's or the JDK's classes (a list, a serializer, a date format) are not services.
      if (type == null || type.getClassLoader() != loader) continue;
      boolean on = enabled.stream().anyMatch(p -> p.matcher(beanName).matches());
      Service s = new Service(beanName, context.getBean(beanName), on);
      for (Method m : type.getMethods()) {
        if (Modifier.isStatic(m.getModifiers()) || m.isBridge() || m.isSynthetic()) continue;
        if (m.getDeclaringClass().getClassLoader() != loader) continue;
        Method twin = s.methods.putIfAbsent(m.getName(), m);
        if (twin != null && on)
          throw new IllegalStateException("service '" + beanName + "' (" + type.getName() + ") has two methods named '"
              + m.getName() + "': method names must not be overloaded, the URL names a method by name only");
      }
      services.put(beanName, s);
    }
    serializers = new Serializers(context, config, loader, exposedClasses());
    resolver = context.containsBean(RESOLVER) ? context.getBean(RESOLVER, PermissionResolver.class) : defaultResolver();
  }

  private ConfigurableApplicationContext startContext() throws Exception {
    String spec = config.applicationContext;
    if (spec.endsWith(".xml")) {
      String resource = spec.startsWith("/") ? spec.substring(1) : spec;
      if (loader.getResource(resource) == null)
        throw new IllegalStateException("applicationContext '" + spec + "' is not in " + config.jar);
      GenericXmlApplicationContext c = new GenericXmlApplicationContext();
      c.setClassLoader(loader);
      c.load("classpath:" + resource);
      c.refresh();
      return c;
    }
    Class<?> type;
    try {
      type = loader.loadClass(spec);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("applicationContext '" + spec + "' is neither an .xml resource nor a class in " + config.jar);
    }
    AnnotationConfigApplicationContext c = new AnnotationConfigApplicationContext();
    c.setClassLoader(loader);
    c.register(type);
    c.refresh();
    return c;
  }

  @SuppressWarnings("unchecked")
  private List<String> remotelyEnabledList() {
    if (config.remotelyEnabled != null) return config.remotelyEnabled;
    if (!context.containsBean(ENABLED_LIST)) return List.of();
    Object list = context.getBean(ENABLED_LIST);
    if (!(list instanceof List) || ((List<Object>) list).stream().anyMatch(e -> !(e instanceof String)))
      throw new IllegalStateException("the bean '" + ENABLED_LIST + "' must be a list of strings");
    return (List<String>) list;
  }

  /** The classes of the exposed methods' parameters and results: their XStream annotations are read. */
  private List<Class<?>> exposedClasses() {
    List<Class<?>> out = new ArrayList<>();
    for (Service s : services.values())
      if (s.remotelyEnabled)
        for (Method m : s.methods.values()) {
          for (Class<?> p : m.getParameterTypes()) if (p.getClassLoader() == loader) out.add(p);
          if (m.getReturnType().getClassLoader() == loader) out.add(m.getReturnType());
        }
    return out;
  }

  private PermissionResolver defaultResolver() {
    List<String> granted = config.privilegedNames;
    return (names, ctx) -> names.stream().anyMatch(granted::contains);
  }

  static boolean needsPrivilege(Method m) {
    return m.isAnnotationPresent(Privileged.class);
  }

  static boolean returnsVoid(Method m) {
    return m.getReturnType() == void.class || m.getReturnType() == Void.class;
  }

  void close() {
    context.close();
  }
}
