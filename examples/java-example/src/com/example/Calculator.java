package com.example;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;

/**
 * SPEC's four operation kinds; every one answers a*b (int arithmetic: a product beyond 32 bits wraps).
 * The annotations say what examples/example's operation notes say: the first @Tag is the group of the
 * description, the further ones its x-tags; examples are JSON texts of the values.
 */
@Tag(name = "calculator", description = "The four operation kinds of SPEC; the ROA ones are documented here.")
@Tag(name = "example")
public class Calculator {
  /** A: Integer, Integer → Integer (RMC only: its @Operation does not put it in the description, SPEC 10). */
  @Operation(summary = "Multiplies a by b, called RMC with [a, b]")
  public Integer multiplyInts(Integer a, Integer b) {
    return times(a, b);
  }

  /** B: In → Out. */
  @Operation(summary = "Multiplies a by b", description = "Integer arithmetic as Java does it: a product beyond 32 bits wraps around.")
  @ApiResponse(responseCode = "200", description = "the product in `result`",
      content = @Content(schema = @Schema(example = "{\"result\": 42}")))
  public Out multiply(@Parameter(name = "in", description = "the two factors", example = "{\"a\": 6, \"b\": 7}") In in) {
    return new Out(times(in.a, in.b));
  }

  /** C: In → Integer. */
  @Operation(summary = "Multiplies a by b and returns the bare number")
  @ApiResponse(responseCode = "200", description = "the product", content = @Content(schema = @Schema(example = "42")))
  public Integer multiplyToInt(@Parameter(name = "in", description = "the two factors", example = "{\"a\": 6, \"b\": 7}") In in) {
    return times(in.a, in.b);
  }

  /** D: Integer, Integer → Out (RMC only). */
  public Out multiplyIntsToOut(Integer a, Integer b) {
    return new Out(times(a, b));
  }

  /** The large-argument case of the benchmarks: RMC [[{"a":..,"b":..}, ...], factor]. */
  public Long sumProducts(List<In> list, Integer factor) {
    long sum = 0;
    for (In item : list) sum += (long) nz(item == null ? null : item.a) * nz(item == null ? null : item.b) * nz(factor);
    return sum;
  }

  private static int times(Integer a, Integer b) {
    return nz(a) * nz(b);
  }

  private static int nz(Integer v) {
    return v == null ? 0 : v;
  }
}
