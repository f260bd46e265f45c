package platform.host;

import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parameter's or result's Java type as the description sees it: the counterpart of the JavaScript
 * SDK's descriptors (src/microservice/descriptors/descriptors.ts), read by reflection from a method's generic
 * types. Kinds as there: scalar (primitive and boxed numbers, booleans, chars, String), date, localDate,
 * object (a class by its fields), list, array, map (String keys), any (Object), void; and enum, which
 * the JavaScript side has no descriptor for.
 */
final class SchemaType {
  enum Kind { SCALAR, DATE, LOCAL_DATE, OBJECT, LIST, ARRAY, MAP, ANY, VOID, ENUM }

  /** A field as XStream and Jackson find it: declared in `owner`, superclass fields first. */
  static final class Member {
    final String name;
    final Class<?> owner;
    final SchemaType type;

    Member(String name, Class<?> owner, SchemaType type) {
      this.name = name;
      this.owner = owner;
      this.type = type;
    }
  }

  /** The JavaScript SDK's scalar names (ScalarType), and the three numbers it has none for. */
  private static final Map<Class<?>, String> SCALARS = new HashMap<>();

  static {
    Object[][] names = {
      {int.class, "int"}, {Integer.class, "Integer"}, {long.class, "long"}, {Long.class, "Long"},
      {double.class, "double"}, {Double.class, "Double"}, {boolean.class, "boolean"}, {Boolean.class, "Boolean"},
      {char.class, "char"}, {Character.class, "Character"}, {String.class, "String"},
      {float.class, "float"}, {Float.class, "Float"}, {short.class, "short"}, {Short.class, "Short"},
      {byte.class, "byte"}, {Byte.class, "Byte"}};
    for (Object[] n : names) SCALARS.put((Class<?>) n[0], (String) n[1]);
  }

  final Kind kind;
  /** The declared class: int.class, Integer.class, List.class, In.class, Integer[].class. */
  final Class<?> raw;
  /** SCALAR: int, Integer, ..., String (descriptors.ts ScalarType). */
  final String scalar;
  /** LIST and ARRAY: the items; MAP: the values. */
  final SchemaType item;
  /** OBJECT: the type as declared, whose type arguments its fields may use. */
  private final Type declared;

  private SchemaType(Kind kind, Class<?> raw, String scalar, SchemaType item, Type declared) {
    this.kind = kind;
    this.raw = raw;
    this.scalar = scalar;
    this.item = item;
    this.declared = declared;
  }

  static SchemaType of(Type type) {
    return of(type, Map.of());
  }

  /** `bindings`: the type arguments of the class whose field this is (Page<In>'s T is In). */
  private static SchemaType of(Type type, Map<TypeVariable<?>, Type> bindings) {
    if (type instanceof Class<?>) return ofClass((Class<?>) type, type);
    if (type instanceof ParameterizedType) {
      ParameterizedType p = (ParameterizedType) type;
      Class<?> raw = (Class<?>) p.getRawType();
      Type[] args = p.getActualTypeArguments();
      if (Collection.class.isAssignableFrom(raw)) return new SchemaType(Kind.LIST, raw, null, of(args[0], bindings), type);
      if (Map.class.isAssignableFrom(raw)) return new SchemaType(Kind.MAP, raw, null, of(args[1], bindings), type);
      if (bindings.isEmpty()) return ofClass(raw, type);
      // A class's own type arguments that are its owner's type variables: bound to what the owner's are.
      Type[] bound = new Type[args.length];
      for (int k = 0; k < args.length; k++) bound[k] = args[k] instanceof TypeVariable<?> && bindings.containsKey(args[k])
          ? bindings.get(args[k]) : args[k];
      return ofClass(raw, new Bound(raw, bound));
    }
    if (type instanceof GenericArrayType)
      return new SchemaType(Kind.ARRAY, Object[].class, null, of(((GenericArrayType) type).getGenericComponentType(), bindings), type);
    if (type instanceof WildcardType) return of(((WildcardType) type).getUpperBounds()[0], bindings);
    if (type instanceof TypeVariable<?>) {
      Type bound = bindings.get(type);
      return of(bound != null ? bound : ((TypeVariable<?>) type).getBounds()[0], Map.of());
    }
    return new SchemaType(Kind.ANY, Object.class, null, null, type);
  }

  /** A parameterized type whose arguments were bound here. */
  private static final class Bound implements ParameterizedType {
    private final Class<?> raw;
    private final Type[] args;

    Bound(Class<?> raw, Type[] args) {
      this.raw = raw;
      this.args = args;
    }

    public Type[] getActualTypeArguments() {
      return args.clone();
    }

    public Type getRawType() {
      return raw;
    }

    public Type getOwnerType() {
      return raw.getDeclaringClass();
    }
  }

  private static SchemaType ofClass(Class<?> c, Type declared) {
    if (c == void.class || c == Void.class) return new SchemaType(Kind.VOID, c, null, null, c);
    String scalar = SCALARS.get(c);
    if (scalar != null) return new SchemaType(Kind.SCALAR, c, scalar, null, c);
    if (c == java.util.Date.class) return new SchemaType(Kind.DATE, c, null, null, c);
    if (c == java.time.LocalDate.class) return new SchemaType(Kind.LOCAL_DATE, c, null, null, c);
    if (c.isArray()) return new SchemaType(Kind.ARRAY, c, null, of(c.getComponentType()), c);
    if (c.isEnum()) return new SchemaType(Kind.ENUM, c, null, null, c);
    // A raw collection or map holds Objects.
    if (Collection.class.isAssignableFrom(c)) return new SchemaType(Kind.LIST, c, null, of(Object.class), c);
    if (Map.class.isAssignableFrom(c)) return new SchemaType(Kind.MAP, c, null, of(Object.class), c);
    // A JDK class the list above does not know is not read field by field (its fields are its own business).
    if (c == Object.class || c.isInterface() || c.isPrimitive() || isJdk(c)) return new SchemaType(Kind.ANY, c, null, null, c);
    return new SchemaType(Kind.OBJECT, c, null, null, declared);
  }

  private static boolean isJdk(Class<?> c) {
    String n = c.getName();
    return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.") || n.startsWith("sun.");
  }

  /** The class a value of this type is written as: the boxed one, a collection interface's default class. */
  Class<?> runtime() {
    if (raw.isPrimitive()) return Invoker.boxed(raw);
    if (kind == Kind.LIST && raw.isInterface()) return Set.class.isAssignableFrom(raw) ? HashSet.class : ArrayList.class;
    if (kind == Kind.MAP && raw.isInterface()) return HashMap.class;
    return raw;
  }

  /** A reference may be null; a primitive may not (descriptors.ts isNullable). */
  boolean isReference() {
    return kind != Kind.VOID && !raw.isPrimitive();
  }

  boolean isCollection() {
    return kind == Kind.LIST || kind == Kind.ARRAY;
  }

  /** The component schema's key: the class name, `$` and the like as `_` (openapi.ts component). */
  String componentKey() {
    return raw.getName().replaceAll("[^A-Za-z0-9._-]", "_");
  }

  /**
   * OBJECT: the fields XStream and Jackson write, in declaration order, superclass fields first; static,
   * transient and synthetic ones left out. The class's type variables stand for the declared type
   * arguments (a superclass's own ones are taken as their bounds).
   */
  List<Member> fields() {
    List<Class<?>> chain = new ArrayList<>();
    for (Class<?> c = raw; c != null && c != Object.class; c = c.getSuperclass()) chain.add(0, c);
    List<Member> out = new ArrayList<>();
    for (Class<?> c : chain)
      for (Field f : c.getDeclaredFields()) {
        int mod = f.getModifiers();
        if (Modifier.isStatic(mod) || Modifier.isTransient(mod) || f.isSynthetic()) continue;
        out.add(new Member(f.getName(), c, of(f.getGenericType(), bindings())));
      }
    return out;
  }

  /** The declared type arguments of this class's type variables (none for a class used raw). */
  private Map<TypeVariable<?>, Type> bindings() {
    if (!(declared instanceof ParameterizedType)) return Map.of();
    TypeVariable<?>[] vars = raw.getTypeParameters();
    Type[] args = ((ParameterizedType) declared).getActualTypeArguments();
    Map<TypeVariable<?>, Type> out = new HashMap<>();
    for (int k = 0; k < vars.length && k < args.length; k++) out.put(vars[k], args[k]);
    return out;
  }

  /** A readable name, as descriptors.ts typeName writes it: Integer, com.example.In, List<String>, Integer[]. */
  String typeName() {
    switch (kind) {
      case SCALAR:
        return scalar;
      case DATE:
        return "Date";
      case LOCAL_DATE:
        return "LocalDate";
      case LIST:
        return raw.getSimpleName() + "<" + item.typeName() + ">";
      case ARRAY:
        return item.typeName() + "[]";
      case MAP:
        return raw.getSimpleName() + "<String," + item.typeName() + ">";
      case ANY:
        return raw == Object.class ? "Object" : raw.getName();
      case VOID:
        return "void";
      default:
        return raw.getName();
    }
  }
}
