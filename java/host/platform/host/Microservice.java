package platform.host;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  /**
   * The package's classes the exposed methods reach: their parameters and results, the type arguments
   * and arrays of those, and their fields' types, transitively. XStream reads their annotations up front,
   * since a document names a class by its alias before XStream has seen the class (a class reached only
   * through an Object field is not known here: its package must register it on its own XStream bean).
   */
  private List<Class<?>> exposedClasses() {
    Set<Class<?>> seen = new LinkedHashSet<>();
    for (Service s : services.values())
      if (s.remotelyEnabled)
        for (Method m : s.methods.values()) {
          for (Type p : m.getGenericParameterTypes()) reach(p, seen);
          reach(m.getGenericReturnType(), seen);
        }
    return new ArrayList<>(seen);
  }

  private void reach(Type t, Set<Class<?>> seen) {
    if (t instanceof ParameterizedType) {
      reach(((ParameterizedType) t).getRawType(), seen);
      for (Type a : ((ParameterizedType) t).getActualTypeArguments()) reach(a, seen);
    } else if (t instanceof GenericArrayType) reach(((GenericArrayType) t).getGenericComponentType(), seen);
    else if (t instanceof WildcardType) for (Type b : ((WildcardType) t).getUpperBounds()) reach(b, seen);
    else if (t instanceof TypeVariable) for (Type b : ((TypeVariable<?>) t).getBounds()) reach(b, seen);
    else if (t instanceof Class) {
      Class<?> c = (Class<?>) t;
      if (c.isArray()) {
        reach(c.getComponentType(), seen);
        return;
      }
      if (c.getClassLoader() != loader || !seen.add(c)) return;
      for (Class<?> k = c; k != null && k.getClassLoader() == loader; k = k.getSuperclass())
        for (Field f : k.getDeclaredFields())
          if (!Modifier.isStatic(f.getModifiers())) reach(f.getGenericType(), seen);
    }
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
