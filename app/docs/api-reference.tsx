"use client";
// The reference is a Vue app (Scalar) that mounts into a div and reads window.location: loaded in
// the browser only, with a line of text until it is there.
import dynamic from "next/dynamic";

export const ApiReference = dynamic(() => import("./scalar-reference"), {
  ssr: false,
  loading: () => <p style={{ padding: 24 }}>Loading the API reference…</p>,
});
